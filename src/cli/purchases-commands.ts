import type { Command } from 'commander';
import { applyPurchaseAction, type PurchaseAction } from '../operations/purchase-operations.js';
import { examples, fail, type WithStore } from './cli-support.js';

const DESCRIPTIONS: Record<PurchaseAction, string> = {
  refund: 'Mark a purchase refunded: its code stops validating at once, on every instance',
  cancel: 'Mark a purchase cancelled: its code stops validating at once, on every instance',
  downloaded: 'Mark a purchase downloaded (shown as "downloaded": true)',
};

/** `purchases ...`: one subcommand per purchase action, through the same functions as the admin API. */
export function addPurchaseCommands(program: Command, withStore: WithStore): Command {
  const purchases = program
    .command('purchases')
    .description('Tell the service about a refund, a cancellation or a download (the same operations as the admin API)')
    .addHelpText(
      'after',
      examples('npm run cli -- purchases refund 0f8e2c1a-9b7d', 'npm run cli -- purchases cancel ABC-123'),
    );
  for (const action of ['refund', 'cancel', 'downloaded'] as const) {
    purchases
      .command(action)
      .description(DESCRIPTIONS[action])
      .argument('<code>', 'the purchase code (any letter case)')
      .addHelpText('after', examples(`npm run cli -- purchases ${action} 0f8e2c1a-9b7d`))
      .action(async (code: string) => {
        const result = await withStore((store) => applyPurchaseAction(store, code, action));
        if (!result.ok) fail(`no purchase with the code ${JSON.stringify(code)}`);
        const { purchase } = result;
        process.stdout.write(`${purchase.purchase_code}: ${purchase.status}, downloaded ${purchase.downloaded}\n`);
      });
  }
  return purchases;
}

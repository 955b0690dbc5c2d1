import type { Command } from 'commander';
import { type AccountAction, applyAccountAction } from '../operations/account-operations.js';
import { examples, fail, type WithStore } from './cli-support.js';

const DESCRIPTIONS: Record<AccountAction, string> = {
  suspend: "Suspend a seller's account: its key answers 401 from the next request on, on every instance",
  reactivate: 'Make a suspended account active again: its key works again at once',
};

/**
 * `accounts ...`: one subcommand per account action, through the same functions as the admin
 * API. Returns the group, so that other commands (`accounts set-password`, say) join it.
 */
export function addAccountCommands(program: Command, withStore: WithStore): Command {
  const accounts = program
    .command('accounts')
    .description("Change a seller's account (the same operations as the admin API)")
    .addHelpText('after', examples('npm run cli -- accounts suspend jdoe', 'npm run cli -- accounts reactivate jdoe'));
  for (const action of ['suspend', 'reactivate'] as const) {
    accounts
      .command(action)
      .description(DESCRIPTIONS[action])
      .argument('<username>', "the account's username")
      .addHelpText('after', examples(`npm run cli -- accounts ${action} jdoe`))
      .action(async (username: string) => {
        const account = await withStore((store) => applyAccountAction(store, username, action));
        if (!account) fail(`no account named ${JSON.stringify(username)}`);
        process.stdout.write(`${account.username}: ${account.status}\n`);
      });
  }
  return accounts;
}

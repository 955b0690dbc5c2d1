import type { Command } from 'commander';
import {
  ACTIVATION_LIMIT_RULE,
  activationLimitFromText,
  setItemActivationLimit,
} from '../operations/activation-operations.js';
import { examples, fail, type WithStore } from './cli-support.js';

/** `items ...`: an item's activation limit, through the same function as the admin API. */
export function addItemCommands(program: Command, withStore: WithStore): Command {
  const items = program
    .command('items')
    .description("Change an item's settings (the same operations as the admin API)")
    .addHelpText('after', examples('npm run cli -- items set-activation-limit 101 3'));
  items
    .command('set-activation-limit')
    .description(
      'How many installs each purchase of the item may activate at once (none: no limit); installs already active stay',
    )
    .argument('<item_id>', 'the item id')
    .argument('<limit>', ACTIVATION_LIMIT_RULE)
    .addHelpText(
      'after',
      examples('npm run cli -- items set-activation-limit 101 3', 'npm run cli -- items set-activation-limit 101 none'),
    )
    .action(async (itemId: string, given: string) => {
      const id = /^\d{1,15}$/.test(itemId.trim()) ? Number(itemId.trim()) : 0;
      if (id < 1) fail(`item_id must be a positive integer, not ${JSON.stringify(itemId)}`);
      const limit = activationLimitFromText(given);
      if (limit === undefined) fail(`the limit must be ${ACTIVATION_LIMIT_RULE}, not ${JSON.stringify(given)}`);
      const found = await withStore((store) => setItemActivationLimit(store, id, limit as number | null));
      if (!found) fail(`no item with the id ${id}`);
      process.stdout.write(`item ${id}: activation limit ${limit === null ? 'none' : limit}\n`);
    });
  return items;
}

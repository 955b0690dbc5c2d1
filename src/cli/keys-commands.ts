import type { Command } from 'commander';
import { isKeyScope, keyName } from '../domain/key-scope.js';
import { loadKeyMaterial } from '../keys/key-material.js';
import {
  createNamedKey,
  listNamedKeys,
  NAMED_KEY_PROBLEMS,
  namedKeyBody,
  revokeNamedKey,
} from '../operations/named-keys.js';
import { EXIT, examples, fail, type WithStore } from './cli-support.js';

/**
 * `keys create|list|revoke`: an account's named keys, each with a scope, through the same
 * functions as the admin API and the workspace. A revoked key stops at once on every running
 * server (they hear of it as of any key change).
 */
export function addNamedKeyCommands(keys: Command, withStore: WithStore): void {
  keys
    .command('create')
    .description(
      'Give the account another API key, named, with a scope (validate: purchase validation and activations only); prints the key, shown this once',
    )
    .argument('<username>', "the account's username")
    .requiredOption('--name <name>', 'what the key is for, as its owner will see it (1 to 64 characters)')
    .requiredOption('--scope <scope>', 'validate (for software you ship) or full (every endpoint)')
    .addHelpText(
      'after',
      examples(
        'npm run cli -- keys create jdoe --name "Installer 2.x" --scope validate',
        'npm run cli -- keys create jdoe --name "Back office" --scope full',
      ),
    )
    .action(async (username: string, options: { name: string; scope: string }) => {
      const name = keyName(options.name);
      if (name === undefined) fail(NAMED_KEY_PROBLEMS.name.replace(/^name/, '--name'), EXIT.usage);
      const scope = options.scope;
      if (!isKeyScope(scope)) fail(NAMED_KEY_PROBLEMS.scope.replace(/^scope/, '--scope'), EXIT.usage);
      const created = await withStore((store, config) =>
        createNamedKey(store, loadKeyMaterial(config), username, name, scope),
      );
      if (created === undefined) fail(`no account named ${JSON.stringify(username)}`);
      process.stdout.write(`${created.key}\n`);
      process.stderr.write(
        `Key ${created.id} (${JSON.stringify(created.name)}, scope ${created.scope}) made. ` +
          'It is shown this once: keep it safe. End it with: ' +
          `npm run cli -- keys revoke ${username} ${created.id}\n`,
      );
    });

  keys
    .command('list')
    .description("The account's named keys as JSON: id, name, scope, created_at, last_used_at (never the key)")
    .argument('<username>', "the account's username")
    .addHelpText('after', examples('npm run cli -- keys list jdoe'))
    .action(async (username: string) => {
      const found = await withStore((store) => listNamedKeys(store, username));
      if (found === undefined) fail(`no account named ${JSON.stringify(username)}`);
      process.stdout.write(`${JSON.stringify(found.map(namedKeyBody), null, 2)}\n`);
    });

  keys
    .command('revoke')
    .description('End one of the account’s named keys at once, everywhere')
    .argument('<username>', "the account's username")
    .argument('<key-id>', 'the id `keys list` shows')
    .addHelpText('after', examples('npm run cli -- keys revoke jdoe key_0123456789abcdef'))
    .action(async (username: string, id: string) => {
      const outcome = await withStore((store) => revokeNamedKey(store, username, id));
      if (outcome === 'no-account') fail(`no account named ${JSON.stringify(username)}`);
      if (outcome === 'no-key') fail(`account ${JSON.stringify(username)} has no API key ${JSON.stringify(id)}`);
      process.stdout.write(`${id}: revoked\n`);
    });
}

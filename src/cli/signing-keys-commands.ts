import type { Command } from 'commander';
import { loadKeyMaterial } from '../keys/key-material.js';
import { publishedRows, rotateSigningKey } from '../signing/signing-keys.js';
import { examples, type WithStore } from './cli-support.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * `signing-keys ...`: the deployment's key pair that signs the API's answers and license tokens.
 * Running servers read the keys again every minute: they sign with the new one within a minute.
 */
export function addSigningKeyCommands(program: Command, withStore: WithStore): Command {
  const signingKeys = program
    .command('signing-keys')
    .description("The key pair that signs the API's answers and license tokens")
    .addHelpText('after', examples('npm run cli -- signing-keys list', 'npm run cli -- signing-keys rotate'));

  signingKeys
    .command('list')
    .description('List the published public keys (newest first): their kid, when made, and until when published')
    .action(async () => {
      await withStore(async (store, config) => {
        const rows = await store.signingKeys().all();
        const now = Date.now();
        const published = publishedRows(rows, config.licenses.tokenDays, now);
        published.forEach((row) => {
          const at = rows.indexOf(row);
          const replacedAt = at === 0 ? undefined : (rows[at - 1]?.created_at as number);
          const until =
            replacedAt === undefined
              ? 'signing now'
              : `published until ${new Date(replacedAt + (config.licenses.tokenDays + 1) * DAY_MS).toISOString()}`;
          process.stdout.write(`${row.kid}  made ${new Date(row.created_at).toISOString()}  ${until}\n`);
        });
      });
    });

  signingKeys
    .command('rotate')
    .description(
      'Make a new key pair that signs from now on; the previous public key stays published for licenses.tokenDays (and a day)',
    )
    .action(async () => {
      await withStore(async (store, config) => {
        const before = (await store.signingKeys().all())[0];
        const made = await rotateSigningKey(store.signingKeys(), loadKeyMaterial(config));
        process.stdout.write(`signing key ${made.kid} made; running servers sign with it within a minute\n`);
        if (before !== undefined && before.kid !== made.kid) {
          const until = new Date(made.created_at + (config.licenses.tokenDays + 1) * DAY_MS).toISOString();
          process.stdout.write(`the previous key ${before.kid} stays published until ${until}\n`);
        }
      });
    });
  return signingKeys;
}

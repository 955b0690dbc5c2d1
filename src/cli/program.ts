import { Command } from 'commander';
import { runExportCommand } from '../exporter/export-command.js';
import { runImportCommand } from '../importer/import-command.js';
import { loadKeyMaterial } from '../keys/key-material.js';
import { runMarketbobCheck, runMarketbobSync, runMarketbobUnlink } from '../marketbob/marketbob-commands.js';
import { KeyManagedByMarketbobError, rotateAccountKey, showKey } from '../operations/account-keys.js';
import { readSnapshot } from '../store/snapshot.js';
import { addAccountCommands } from './accounts-commands.js';
import { type CliConfig, EXIT, EXIT_CODES_HELP, examples, fail, storeRunner, type WithStore } from './cli-support.js';
import { addItemCommands } from './items-commands.js';
import { addNamedKeyCommands } from './keys-commands.js';
import { addPurchaseCommands } from './purchases-commands.js';
import { setPasswordCommand } from './set-password-command.js';
import { addSigningKeyCommands } from './signing-keys-commands.js';
import { addWebhookCommands } from './webhooks-commands.js';

/**
 * The CLI's commands. Usage errors throw a CommanderError (exitOverride) instead of exiting, so
 * main.ts picks the exit code and tests can run `--help` in-process.
 */
export interface ProgramOptions {
  /** Reads the configuration (the server's), when a command needs it. */
  readonly loadConfig: () => CliConfig;
  readonly version: string;
}

/** Which configuration the commands read: the server's, so that both go by the same rules. */
const CONFIGURATION_HELP = `
Configuration (the same as the server's; run the CLI where the server runs):
  the environment   DATABASE_URL (the store; sqlite:./data/marketplace.db when unset),
                    SECRET_KEY, MARKETBOB_DATABASE_URL and the others of the README
  the JSON file     MARKETPLACE_CONFIG names (variants, webhooks.allowHttp and
                    webhooks.allowHosts, marketbob, ...); the built-in defaults when unset
`;

export function createProgram({ loadConfig, version }: ProgramOptions): Command {
  const withStore = storeRunner(loadConfig);
  const program = new Command('marketplace-api')
    .description(
      'Administer the marketplace-api store, with the configuration the server reads (see Configuration below).',
    )
    .version(version, '-V, --version', 'print the version and exit')
    .showHelpAfterError()
    // Usage errors exit 2, apart from failures of a command that ran (1): see EXIT.
    .exitOverride()
    .addHelpText(
      'after',
      `${examples(
        'npm run cli -- import catalogue.ndjson',
        'npm run cli -- export backup.ndjson',
        'npm run cli -- keys rotate jdoe',
        'npm run cli -- purchases refund 0f8e2c1a-9b7d',
        'npm run cli -- accounts suspend jdoe',
        'npm run cli -- webhooks list jdoe',
        'npm run cli -- marketbob sync',
        'npm run cli -- help purchases',
      )}${CONFIGURATION_HELP}${EXIT_CODES_HELP}\n`,
    );

  program
    .command('import')
    .description('Load accounts, items and purchases from an NDJSON file (- for standard input), all or nothing')
    .argument('<file>', 'NDJSON file, or - for standard input')
    .option(
      '--replace-keys',
      "let an account line's api_key replace the account's current key (without it, such a line is refused)",
    )
    .addHelpText(
      'after',
      examples(
        'npm run cli -- import catalogue.ndjson',
        'gunzip -c sales.ndjson.gz | npm run cli -- import -',
        'npm run cli -- import --replace-keys backup.ndjson',
      ),
    )
    .action(async (file: string, options: { replaceKeys?: boolean }) => {
      const ok = await withStore((store, config) =>
        runImportCommand({ store, keys: loadKeyMaterial(config), file, replaceKeys: options.replaceKeys ?? false }),
      );
      if (!ok) process.exitCode = EXIT.failed;
    });

  program
    .command('export')
    .description(
      'Write the whole store as NDJSON in the import format (keys in clear), to FILE (mode 0600) or standard output',
    )
    .argument('[file]', 'NDJSON file to write, or - (the default) for standard output')
    .addHelpText('after', examples('npm run cli -- export backup.ndjson', 'npm run cli -- export - | gzip > backup.gz'))
    .action(async (file: string | undefined) => {
      // The store is opened (and so migrated) first; the export reads a snapshot of its own.
      const ok = await withStore((_store, config) =>
        runExportCommand({ keys: loadKeyMaterial(config), read: (work) => readSnapshot(config.store, work), file }),
      );
      if (!ok) process.exitCode = EXIT.failed;
    });

  const keys = program
    .command('keys')
    .description("Show or rotate an account's API key; create, list or revoke its named keys")
    .addHelpText(
      'after',
      examples(
        'npm run cli -- keys show jdoe',
        'npm run cli -- keys rotate jdoe',
        'npm run cli -- keys create jdoe --name "Installer" --scope validate',
      ),
    );
  keys
    .command('show')
    .description("Print the account's current API key")
    .argument('<username>', "the account's username")
    .addHelpText('after', examples('npm run cli -- keys show jdoe'))
    .action(async (username: string) => {
      const [key, marketbobUser] = await withStore(async (store, config) => [
        await showKey(store, loadKeyMaterial(config), username),
        await store.marketbobUserId(username),
      ]);
      if (key === undefined) fail(`no account named ${JSON.stringify(username)}`);
      if (key === null) {
        fail(
          `account ${JSON.stringify(username)} has no API key` +
            (marketbobUser === undefined
              ? ''
              : ": its key is MarketBob's, and its MarketBob user has none (generate one there)"),
        );
      }
      process.stdout.write(`${key}\n`);
    });
  keys
    .command('rotate')
    .description(
      'Give the account a new API key; the old one keeps working for keyRotationGraceSeconds (0: stops at once), ' +
        'any key retired before stops at once',
    )
    .argument('<username>', "the account's username")
    .option('--now', 'end the old key at once, whatever keyRotationGraceSeconds says (a leaked key)')
    .addHelpText('after', examples('npm run cli -- keys rotate jdoe', 'npm run cli -- keys rotate --now jdoe'))
    .action(async (username: string, options: { now?: boolean }) => {
      const rotated = await withStore((store, config) =>
        rotateAccountKey(store, loadKeyMaterial(config), username, options.now ? 0 : config.keyRotationGraceSeconds),
      ).catch((error: unknown) => {
        if (error instanceof KeyManagedByMarketbobError) fail(`refused: ${error.message}`);
        throw error;
      });
      if (rotated === undefined) fail(`no account named ${JSON.stringify(username)}`);
      process.stdout.write(`${rotated.key}\n`);
      const old = rotated.oldKeyWorksUntil;
      process.stderr.write(
        `${old ? `The old key works until ${old.toISOString()}.` : 'The old key no longer works.'} ` +
          `Keep this new key safe; see it again with: npm run cli -- keys show ${username}\n`,
      );
    });

  addNamedKeyCommands(keys, withStore);

  addAccountCommands(program, withStore)
    .command('set-password')
    .description(
      "Set the account's workspace password: asked twice (hidden) on a terminal, else one line read from standard input",
    )
    .argument('<username>', "the account's username")
    .addHelpText(
      'after',
      examples(
        'npm run cli -- accounts set-password jdoe',
        `printf '%s\\n' "$PASSWORD" | npm run cli -- accounts set-password jdoe`,
      ),
    )
    .action(async (username: string) => {
      const ok = await withStore((store) => setPasswordCommand(store, username));
      if (!ok) process.exitCode = EXIT.failed;
    });
  addPurchaseCommands(program, withStore);
  addItemCommands(program, withStore);
  addWebhookCommands(program, withStore);
  addSigningKeyCommands(program, withStore);
  addMarketbobCommands(program, loadConfig, withStore);
  return program;
}

/** `marketbob check`, `sync` and `unlink`: a MarketBob marketplace's database as the source (docs/marketbob.md). */
function addMarketbobCommands(program: Command, loadConfig: () => CliConfig, withStore: WithStore): void {
  const marketbob = program
    .command('marketbob')
    .description(
      "Read a MarketBob marketplace's MySQL/MariaDB database (MARKETBOB_DATABASE_URL or the config's marketbob)",
    )
    .addHelpText('after', examples('npm run cli -- marketbob check', 'npm run cli -- marketbob sync'));
  const source = () => {
    const config = loadConfig();
    if (config.marketbob === undefined) {
      fail('no MarketBob database: set MARKETBOB_DATABASE_URL (or marketbob.url in the config file)', EXIT.usage);
    }
    return config.marketbob;
  };
  marketbob
    .command('check')
    .description(
      'Connect, read information_schema: the optional columns present, what will be read and how many rows, the indexes the follower lacks',
    )
    .addHelpText(
      'after',
      examples(
        'npm run cli -- marketbob check',
        "MARKETBOB_DATABASE_URL='mysql://reader:secret@db:3306/marketbob' npm run cli -- marketbob check",
      ),
    )
    .action(async () => {
      if ((await runMarketbobCheck(source(), {}, loadConfig().variants)) !== 'ok') process.exitCode = EXIT.failed;
    });
  marketbob
    .command('unlink')
    .description(
      'Unlink every account (or one) from MarketBob, so that keys are generated here again; refused while the bridge is configured, unless --force',
    )
    .argument('[username]', 'only this account')
    .option('--force', 'unlink even though a MarketBob database is configured (its next sync links them again)')
    .addHelpText('after', examples('npm run cli -- marketbob unlink', 'npm run cli -- marketbob unlink jdoe'))
    .action(async (username: string | undefined, options: { force?: boolean }) => {
      const outcome = await withStore((store, config) =>
        runMarketbobUnlink(
          { username, force: options.force === true, configured: config.marketbob !== undefined },
          store,
        ),
      );
      if (outcome !== 'ok') process.exitCode = EXIT.failed;
    });
  marketbob
    .command('sync')
    .description('Copy every user, item and purchase into the store, all or nothing; a second run changes nothing')
    .addHelpText('after', examples('npm run cli -- marketbob sync'))
    .action(async () => {
      source();
      const outcome = await withStore((store, config) =>
        runMarketbobSync({ ...config, marketbob: source() }, store, loadKeyMaterial(config)),
      );
      if (outcome !== 'ok') process.exitCode = EXIT.failed;
    });
}

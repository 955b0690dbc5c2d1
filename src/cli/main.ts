#!/usr/bin/env node
import { Command } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { runExportCommand } from '../exporter/export-command.js';
import { runImportCommand } from '../importer/import-command.js';
import { rotateAccountKey, showKey } from '../keys/account-keys.js';
import { loadKeyMaterial } from '../keys/key-material.js';
import { openStore } from '../store/open-store.js';
import { readSnapshot } from '../store/snapshot.js';
import type { Store } from '../store/store.js';
import { setPasswordCommand } from './set-password-command.js';

/** Opens the configured store for one command and always closes it. */
async function withStore<T>(work: (store: Store, config: ReturnType<typeof loadConfig>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config.store);
  try {
    return await work(store, config);
  } finally {
    await store.close();
  }
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const program = new Command('marketplace-api')
  .description('Administer the marketplace-api store (uses the same configuration as the server)')
  .showHelpAfterError();

program
  .command('import')
  .description('Load accounts, items and purchases from an NDJSON file (- for standard input), all or nothing')
  .argument('<file>', 'NDJSON file, or - for standard input')
  .action(async (file: string) => {
    const ok = await withStore((store, config) => runImportCommand({ store, keys: loadKeyMaterial(config), file }));
    if (!ok) process.exitCode = 1;
  });

program
  .command('export')
  .description(
    'Write the whole store as NDJSON in the import format (keys in clear), to FILE (mode 0600) or standard output',
  )
  .argument('[file]', 'NDJSON file to write, or - (the default) for standard output')
  .action(async (file: string | undefined) => {
    const ok = await withStore((_store, config) =>
      runExportCommand({ keys: loadKeyMaterial(config), read: (work) => readSnapshot(config.store, work), file }),
    );
    if (!ok) process.exitCode = 1;
  });

const keys = program.command('keys').description("Show or rotate an account's API key");
keys
  .command('show')
  .description("Print the account's current API key")
  .argument('<username>')
  .action(async (username: string) => {
    const key = await withStore((store, config) => showKey(store, loadKeyMaterial(config), username));
    if (key === undefined) fail(`no account named ${JSON.stringify(username)}`);
    process.stdout.write(`${key}\n`);
  });
keys
  .command('rotate')
  .description('Give the account a new API key; the old one stops working at once (or after keyRotationGraceSeconds)')
  .argument('<username>')
  .action(async (username: string) => {
    const rotated = await withStore((store, config) =>
      rotateAccountKey(store, loadKeyMaterial(config), username, config.keyRotationGraceSeconds),
    );
    if (rotated === undefined) fail(`no account named ${JSON.stringify(username)}`);
    process.stdout.write(`${rotated.key}\n`);
    const old = rotated.oldKeyWorksUntil;
    process.stderr.write(
      `${old ? `The old key works until ${old.toISOString()}.` : 'The old key no longer works.'} ` +
        'This new key is shown once: keep it safe.\n',
    );
  });

const accounts = program.command('accounts').description("Manage sellers' workspace logins");
accounts
  .command('set-password')
  .description(
    "Set the account's workspace password: asked twice (hidden) on a terminal, else one line read from standard input",
  )
  .argument('<username>')
  .action(async (username: string) => {
    const ok = await withStore((store) => setPasswordCommand(store, username));
    if (!ok) process.exitCode = 1;
  });

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  fail(`error: ${error instanceof Error ? error.message : String(error)}`);
}

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import { packageVersion } from '../../src/version.js';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';
import { accountLine, itemLine, ndjsonText, purchaseLine } from '../importer/import-fixtures.js';

describe.each(TEST_STORES)('npm run cli -- accounts / purchases (%s)', (kind) => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    env = cleanEnv({ ...database.env });
    const file = join(database.dir, 'seed.ndjson');
    writeFileSync(
      file,
      ndjsonText([accountLine(), itemLine(), purchaseLine({ code: 'CLI-1' }), purchaseLine({ code: 'CLI-2' })]),
    );
    const imported = await runCli(['import', file], { cwd: database.dir, env });
    expect(imported.code, imported.stderr).toBe(0);
  });
  afterAll(() => database.drop());

  const stored = async <T>(read: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>) => {
    const store = await openStore(loadConfig(env).store);
    try {
      return await read(store);
    } finally {
      await store.close();
    }
  };
  const cli = (...args: string[]) => runCli(args, { cwd: database.dir, env });

  it('suspends and reactivates an account', async () => {
    expect(await cli('accounts', 'suspend', 'jdoe')).toEqual({ code: 0, stdout: 'jdoe: suspended\n', stderr: '' });
    expect((await stored((store) => store.accountByUsername('jdoe')))?.status).toBe('suspended');
    expect(await cli('accounts', 'reactivate', 'jdoe')).toEqual({ code: 0, stdout: 'jdoe: active\n', stderr: '' });
    expect((await stored((store) => store.accountByUsername('jdoe')))?.status).toBe('active');
    expect(await cli('accounts', 'suspend', 'nobody')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'no account named "nobody"\n',
    });
  });

  it('refunds and cancels a purchase, by its code in any letter case', async () => {
    expect(await cli('purchases', 'refund', 'cli-1')).toEqual({
      code: 0,
      stdout: 'CLI-1: refunded, downloaded true\n',
      stderr: '',
    });
    expect(await cli('purchases', 'cancel', 'CLI-2')).toEqual({
      code: 0,
      stdout: 'CLI-2: cancelled, downloaded true\n',
      stderr: '',
    });
    expect((await stored((store) => store.purchase('cli-1')))?.status).toBe('refunded');
    expect((await stored((store) => store.purchase('cli-2')))?.status).toBe('cancelled');
    expect(await cli('purchases', 'refund', 'NOPE')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'no purchase with the code "NOPE"\n',
    });
  });
});

/** The CLI's program with its output (every command's) captured. */
function capturedProgram() {
  const program = createProgram({ loadConfig: () => loadConfig(), version: packageVersion() });
  let output = '';
  const capture = (command: Command) => {
    command.configureOutput({
      writeOut: (text) => {
        output += text;
      },
      writeErr: (text) => {
        output += text;
      },
    });
    for (const sub of command.commands) capture(sub);
  };
  capture(program);
  return { program, output: () => output };
}

/** Runs the program in-process on these arguments; the CommanderError it ends with (help and usage errors do). */
async function parse(args: readonly string[]) {
  const { program, output } = capturedProgram();
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return { exitCode: error.exitCode, code: error.code, output: output() };
    throw error;
  }
  throw new Error(`no CommanderError for ${args.join(' ')}`);
}

describe('npm run cli -- --help', () => {
  it('has help with examples on every command', async () => {
    const commands = [
      [],
      ['import'],
      ['export'],
      ['keys'],
      ['keys', 'show'],
      ['keys', 'rotate'],
      ['accounts'],
      ['accounts', 'suspend'],
      ['accounts', 'reactivate'],
      ['purchases'],
      ['purchases', 'refund'],
      ['purchases', 'cancel'],
      ['purchases', 'downloaded'],
    ];
    for (const command of commands) {
      const help = await parse([...command, '--help']);
      expect([command, help.code, help.exitCode]).toEqual([command, 'commander.helpDisplayed', 0]);
      expect(help.output).toContain(`Usage: marketplace-api ${command.join(' ')}`.trimEnd());
      expect(help.output).toContain('Examples:\n  $ npm run cli -- ');
    }
    expect((await parse(['--help'])).output).toContain(
      'Exit codes:\n  0  done\n  1  the command failed (bad lines in an import, no such account or purchase, the store failed)\n' +
        '  2  usage error (unknown command or option, missing argument) or a bad configuration\n',
    );
    // Which configuration it reads: the environment and the file MARKETPLACE_CONFIG names.
    const top = (await parse(['--help'])).output;
    expect(top).toContain(
      "Configuration (the same as the server's; run the CLI where the server runs):\n" +
        '  the environment   DATABASE_URL (the store; sqlite:./data/marketplace.db when unset),\n' +
        '                    SECRET_KEY, MARKETBOB_DATABASE_URL and the others of the README\n' +
        '  the JSON file     MARKETPLACE_CONFIG names (variants, webhooks.allowHttp and\n' +
        '                    webhooks.allowHosts, marketbob, ...); the built-in defaults when unset\n',
    );
  });

  it('says what is wrong on a usage error, and the process exits 2', async () => {
    const unknown = await parse(['bogus']);
    expect(unknown.output).toMatch(/^error: unknown command 'bogus'\n/);
    const missing = await parse(['purchases', 'refund']);
    expect(missing.output).toMatch(/^error: missing required argument 'code'\n/);
    const run = await runCli(['purchases', 'refund'], { cwd: process.cwd(), env: cleanEnv() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: missing required argument 'code'\n\nUsage: marketplace-api purchases refund/);
  });
});

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const SECRET = 'export-import-secret-0123456789abcdef';
const FILE_KEY = 'exported-key-0123456789abcdef';
const REFUSAL =
  'line 1: account: api_key is a key this account had before and that was replaced; importing it would bring it back ' +
  'in place of the current key (to do so: import --replace-keys, or replace_keys=true in the admin API)\n' +
  'import failed: 1 bad line; nothing was written\n';

/**
 * An export holds every key in clear: the README's own line must write a file only its owner can
 * read, that `import` reads back. And importing an old export again must not bring back a key
 * that was rotated away, unless told to (`--replace-keys`).
 */
describe('export and import of keys through the CLI', () => {
  let dir: string;
  const envFor = (name: string) => cleanEnv({ DATABASE_URL: `sqlite:${join(dir, name)}`, SECRET_KEY: SECRET });
  const cli = (args: readonly string[], store = 'store.db') => runCli(args, { cwd: dir, env: envFor(store) });

  beforeAll(async () => {
    // `npm run cli` runs dist/: test/global-setup.ts built it from these sources, so the test never runs a stale build.
    // Inside the project (test-output/ is ignored by git), so that npm finds its package.json from here.
    mkdirSync(join(ROOT, 'test-output'), { recursive: true });
    dir = mkdtempSync(join(ROOT, 'test-output', 'export-import-'));
    const seed = join(dir, 'seed.ndjson');
    writeFileSync(
      seed,
      `${JSON.stringify({ type: 'account', username: 'jdoe', email: 'j@example.com', api_key: FILE_KEY, registered_at: '2023-01-02T03:04:05Z' })}\n`,
    );
    const imported = await cli(['import', seed]);
    expect(imported.code, imported.stderr).toBe(0);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs the README's export line through a shell: a file of mode 0600 that import reads back", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const line = readme.split('\n').find((text) => text.includes('export > store.ndjson'));
    expect(line).toBe('npm run -s cli -- export > store.ndjson');
    // The usual umask, under which the shell makes the file 0644 before the export starts.
    await run('sh', ['-c', `umask 022 && ${line}`], { cwd: dir, env: envFor('store.db') });
    const file = join(dir, 'store.ndjson');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^\{"type":"account","username":"jdoe",/);

    const imported = await cli(['import', file], 'copy.db');
    expect([imported.code, imported.stderr]).toEqual([0, '']);
    expect((await cli(['keys', 'show', 'jdoe'], 'copy.db')).stdout).toBe(`${FILE_KEY}\n`);
  });

  it("names npm's banner when an export made without -s is imported", async () => {
    const file = join(dir, 'with-banner.ndjson');
    const exported = readFileSync(join(dir, 'store.ndjson'), 'utf8');
    writeFileSync(file, `\n> marketplace-api@1.0.0 cli\n> exec node dist/src/cli/main.js export\n\n${exported}`);
    const imported = await cli(['import', file], 'banner.db');
    expect([imported.code, imported.stderr]).toEqual([
      1,
      "line 2: not valid JSON (npm's banner? export with npm run -s cli -- export > FILE)\n" +
        "line 3: not valid JSON (npm's banner? export with npm run -s cli -- export > FILE)\n" +
        'import failed: 2 bad lines; nothing was written\n',
    ]);
  });

  it('refuses to bring back a rotated key from an old export, unless --replace-keys', async () => {
    const backup = join(dir, 'backup.ndjson');
    expect((await cli(['export', backup])).code).toBe(0);
    const rotated = await cli(['keys', 'rotate', 'jdoe']);
    expect(rotated.code).toBe(0);
    const newKey = rotated.stdout.trim();

    expect(await cli(['import', backup])).toEqual({ code: 1, stdout: '', stderr: REFUSAL });
    expect((await cli(['keys', 'show', 'jdoe'])).stdout).toBe(`${newKey}\n`);

    const replaced = await cli(['import', '--replace-keys', backup]);
    expect([replaced.code, replaced.stderr]).toEqual([0, '']);
    expect((await cli(['keys', 'show', 'jdoe'])).stdout).toBe(`${FILE_KEY}\n`);
  });
});

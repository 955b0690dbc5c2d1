import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, type Running, runCli, startNode } from '../helpers/processes.js';

/**
 * Starts the server would once have made silently, and now refuses with one line on stderr and a
 * non-zero exit code, before listening: a server secret that cannot open the store's keys (every
 * key would answer 401 while /readyz said ready), and an SQLite path in a directory that does not
 * exist (a typo would have started an empty store in a new directory).
 */
const RIGHT_SECRET = 'the-right-secret-0123456789abcdef-0123';
const WRONG_SECRET = 'the-wrong-secret-0123456789abcdef-0123';
const started: Running[] = [];

afterAll(() => {
  for (const server of started) server.child.kill('SIGKILL');
});

function start(cwd: string, env: Record<string, string>): Running {
  const server = startNode('src/main.ts', [], { cwd, env: cleanEnv({ PORT: '0', LOG_LEVEL: 'info', ...env }) });
  started.push(server);
  return server;
}

describe('the server refuses to start', () => {
  let dir: string;
  let storeEnv: Record<string, string>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'marketplace-refusals-'));
    storeEnv = { DATABASE_URL: `sqlite:${join(dir, 'store.db')}` };
    const file = join(dir, 'one.ndjson');
    writeFileSync(
      file,
      `${JSON.stringify({ type: 'account', username: 'solo', email: 's@example.com', registered_at: '2023-01-02T03:04:05Z' })}\n`,
    );
    const imported = await runCli(['import', file], {
      cwd: dir,
      env: cleanEnv({ ...storeEnv, SECRET_KEY: RIGHT_SECRET }),
    });
    expect(imported.code, imported.stderr).toBe(0);
  });

  const WRONG_SECRET_LINE =
    "marketplace-api failed to start: the store's API keys cannot be decrypted with this server secret: " +
    'start with the SECRET_KEY (or secret.key) the store was filled with\n';

  it.each(['1', '2'])('with a SECRET_KEY that cannot open the stored keys (WORKERS=%s)', async (workers) => {
    const server = start(dir, { ...storeEnv, SECRET_KEY: WRONG_SECRET, WORKERS: workers });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(WRONG_SECRET_LINE);
    expect(server.stdout()).not.toContain('listening');
    expect(server.stdout() + server.stderr()).not.toContain(WRONG_SECRET);
  });

  it('but starts with the right one', async () => {
    const server = start(dir, { ...storeEnv, SECRET_KEY: RIGHT_SECRET });
    await server.waitFor(/Server listening at/);
    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
  });

  it.each(['1', '2'])('with an SQLite path whose directory does not exist (WORKERS=%s)', async (workers) => {
    const missing = join(dir, 'no-such-dir');
    const server = start(dir, {
      DATABASE_URL: `sqlite:${join(missing, 'x.db')}`,
      SECRET_KEY: RIGHT_SECRET,
      WORKERS: workers,
    });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(
      `marketplace-api failed to start: DATABASE_URL: the directory ${missing} of the SQLite store does not exist: ` +
        'create it (mkdir -m 700) or name another path\n',
    );
    expect(existsSync(missing)).toBe(false);
  });

  it.each([
    ['0777', 'group and others'],
    ['0770', 'group'],
    ['1703', 'others'],
  ])('with an SQLite store in a directory of mode %s, which %s may write to', async (mode, who) => {
    const open = join(dir, `open-${mode}`);
    mkdirSync(open);
    chmodSync(open, Number.parseInt(mode, 8));
    const server = start(dir, { DATABASE_URL: `sqlite:${join(open, 'x.db')}`, SECRET_KEY: RIGHT_SECRET });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(
      `marketplace-api failed to start: DATABASE_URL: the directory ${open} of the SQLite store may be written by ${who} ` +
        `(mode ${mode}), who could replace the store or its secret: run chmod go-w ${open} (or chmod 700 ${open}), ` +
        "or name a path in a directory of this user's own\n",
    );
    expect(existsSync(join(open, 'x.db'))).toBe(false);
    expect(server.stdout()).not.toContain('listening');

    // Once the chmod is run, it starts.
    chmodSync(open, 0o700);
    const again = start(dir, { DATABASE_URL: `sqlite:${join(open, 'x.db')}`, SECRET_KEY: RIGHT_SECRET });
    await again.waitFor(/Server listening at/);
    again.child.kill('SIGTERM');
    expect(await again.exited()).toBe(0);
  });
});

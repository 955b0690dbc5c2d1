import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateSecretFile, ServerSecretError } from '../../src/keys/server-secret.js';
import { cleanEnv, runCli, startNode } from '../helpers/processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const freshDir = () => mkdtempSync(join(tmpdir(), 'marketplace-secret-'));
const GOOD = 'a-good-server-secret-0123456789abcdef-0123456789';

/** A secret file with these contents and mode, in a fresh directory. */
function secretFile(contents: string, mode: number): string {
  const path = join(freshDir(), 'secret.key');
  writeFileSync(path, contents, { mode });
  chmodSync(path, mode);
  return path;
}

const shortMessage = (path: string, bytes: number) =>
  `the server secret ${path} holds ${bytes} bytes, fewer than 32 (a full disk at first start leaves it empty): ` +
  'restore it from a backup, or delete it to have a new one made and give every account a new key (keys rotate)';
const openMessage = (path: string, mode: string) =>
  `the server secret ${path} is open to group or others (mode ${mode}): run chmod 600 ${path}`;

/** The error `work` throws. */
function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('the secret.key file', () => {
  it('is made once, whole, mode 0600, with no temp file left beside it, and read back after', () => {
    const dir = freshDir();
    const path = join(dir, 'sub', 'secret.key');
    const secret = loadOrCreateSecretFile(path);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path, 'utf8')).toBe(`${secret}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, 'sub'))).toEqual(['secret.key']);
    expect(loadOrCreateSecretFile(path)).toBe(secret);
  });

  it.each([
    ['empty (a full disk at first start)', '', 0],
    ['a newline only', '\n', 0],
    ['31 bytes', `${'x'.repeat(31)}\n`, 31],
  ])('is refused when %s, naming the file and the fix', (_case, contents, bytes) => {
    const path = secretFile(contents, 0o600);
    const error = thrown(() => loadOrCreateSecretFile(path));
    expect(error).toBeInstanceOf(ServerSecretError);
    expect((error as Error).message).toBe(shortMessage(path, bytes));
    // Refused, never replaced: the keys already stored were made with whatever it held.
    expect(readFileSync(path, 'utf8')).toBe(contents);
  });

  it.each([
    [0o640, '0640'],
    [0o604, '0604'],
    [0o644, '0644'],
    [0o660, '0660'],
    [0o620, '0620'],
  ])('is refused when its mode is %o (open to others than its owner), without showing it', (mode, shown) => {
    const path = secretFile(GOOD, mode);
    const error = thrown(() => loadOrCreateSecretFile(path));
    expect(error).toBeInstanceOf(ServerSecretError);
    expect((error as Error).message).toBe(openMessage(path, shown));
    expect((error as Error).message).not.toContain(GOOD);
  });

  it('is accepted at exactly 32 bytes, mode 0400 or 0600', () => {
    expect(loadOrCreateSecretFile(secretFile('y'.repeat(32), 0o400))).toBe('y'.repeat(32));
    expect(loadOrCreateSecretFile(secretFile(`${GOOD}\n`, 0o600))).toBe(GOOD);
  });
});

describe('two processes making the secret at once', () => {
  const racers: ChildProcessWithoutNullStreams[] = [];
  const answers: AsyncIterator<string>[] = [];

  beforeAll(async () => {
    for (let n = 0; n < 2; n++) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/keys/fixtures/secret-racer.ts'], { cwd: ROOT });
      racers.push(child);
      answers.push(createInterface({ input: child.stdout })[Symbol.asyncIterator]());
    }
    for (const lines of answers) expect((await lines.next()).value).toBe('ready');
  });
  afterAll(() => {
    for (const child of racers) child.kill();
  });

  it('agree on one secret every time, and leave only the one file', async () => {
    for (let round = 0; round < 40; round++) {
      const dir = freshDir();
      const path = join(dir, 'secret.key');
      // Both are told in the same tick, each already waiting on its stdin.
      for (const child of racers) child.stdin.write(`${path}\n`);
      const [first, second] = await Promise.all(answers.map(async (lines) => (await lines.next()).value as string));
      expect(first).toMatch(/^[0-9a-f]{64}$/);
      expect(second).toBe(first);
      expect(readdirSync(dir)).toEqual(['secret.key']);
      expect(statSync(path).mode & 0o777).toBe(0o600);
    }
  });
});

describe('a bad secret file at start', () => {
  /** A store directory whose secret.key is empty, as a full disk leaves it. */
  const emptySecret = () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'secret.key'), '', { mode: 0o600 });
    return {
      dir,
      path: join(dir, 'secret.key'),
      env: cleanEnv({ DATABASE_URL: `sqlite:${join(dir, 'marketplace.db')}`, PORT: '0' }),
    };
  };

  it('stops the server with one line naming the file and the fix, and no stack trace', async () => {
    const { dir, path, env } = emptySecret();
    const server = startNode('src/main.ts', [], { cwd: dir, env });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(`marketplace-api failed to start: ${shortMessage(path, 0)}\n`);
  });

  it('stops a CLI command the same way', async () => {
    const { dir, path, env } = emptySecret();
    const result = await runCli(['keys', 'show', 'anyone'], { cwd: dir, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error: ${shortMessage(path, 0)}\n`);
    expect(result.stdout).toBe('');
  });

  it('stops the server when the file is readable by others, without printing the secret', async () => {
    const dir = freshDir();
    const path = join(dir, 'secret.key');
    writeFileSync(path, GOOD, { mode: 0o644 });
    chmodSync(path, 0o644);
    const env = cleanEnv({ DATABASE_URL: `sqlite:${join(dir, 'marketplace.db')}`, PORT: '0' });
    const server = startNode('src/main.ts', [], { cwd: dir, env });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(`marketplace-api failed to start: ${openMessage(path, '0644')}\n`);
    expect(server.stdout()).not.toContain(GOOD);
  });
});

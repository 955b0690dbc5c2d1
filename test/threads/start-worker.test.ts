import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { threadId, type Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { openStore } from '../../src/store/open-store.js';
import { startWorker, workerStart } from '../../src/threads/start-worker.js';
import { ROOT } from '../helpers/processes.js';
import { createTestDatabase, seedAccount } from '../helpers/test-database.js';

/**
 * Every worker thread starts through one function, compiled (dist/, as `npm start` runs it) or
 * from the TypeScript sources (this runner, `npm run dev`), and Piscina's pool takes the same
 * form. The options given (data, environment, resource limits) reach the thread as given.
 */

const ECHO_THREAD = new URL('./fixtures/echo-thread.js', import.meta.url);
const ECHO_TASK = new URL('./fixtures/echo-task.js', import.meta.url);
const OPTIONS = {
  workerData: { n: 7, words: ['a', 'b'] },
  env: { ECHO_ENV: 'from the env option' },
  resourceLimits: { maxOldGenerationSizeMb: 48 },
};

/** The thread's first message; it stops then. */
async function firstAnswer(worker: Worker): Promise<unknown> {
  try {
    const [message] = await once(worker, 'message');
    return message;
  } finally {
    await worker.terminate();
  }
}

describe('a worker thread started from the sources', () => {
  it('runs the .ts module its .js name stands for, with the options given', async () => {
    expect(await firstAnswer(startWorker(ECHO_THREAD, OPTIONS))).toEqual({
      said: 'echo',
      workerData: OPTIONS.workerData,
      env: 'from the env option',
      maxOldGenerationSizeMb: 48,
      execArgv: ['--import', expect.stringMatching(/\/src\/threads\/register-tsx\.mjs$/)],
    });
  });

  it('keeps the flags given, before the loader', async () => {
    const answer = await firstAnswer(startWorker(ECHO_THREAD, { execArgv: ['--no-warnings'] }));
    expect(answer).toMatchObject({ execArgv: ['--no-warnings', '--import', expect.any(String)] });
  });

  it("starts Piscina's pool the same way", async () => {
    const pool = new Piscina({ ...workerStart(ECHO_TASK), maxThreads: 1 });
    try {
      expect(await pool.run('word', { name: 'echo' })).toBe('echo word');
    } finally {
      await pool.destroy();
    }
  });

  it('takes a module by its compiled .js name only', () => {
    expect(() => workerStart(new URL('./fixtures/echo-thread.ts', import.meta.url))).toThrow(/\.js file/);
    expect(() => workerStart(new URL('https://example.com/thread.js'))).toThrow(/\.js file/);
  });
});

describe('a worker thread started compiled (dist/, built by the suite setup)', () => {
  const dist = (path: string) => pathToFileURL(join(ROOT, 'dist', path)).href;
  const temp = mkdtempSync(join(tmpdir(), 'marketplace-threads-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('runs the .js module as named, with the options given and the process’s own flags', async () => {
    const compiled: typeof import('../../src/threads/start-worker.js') = await import(
      dist('src/threads/start-worker.js')
    );
    const file = join(temp, 'echo-thread.js');
    writeFileSync(
      file,
      "import { parentPort, resourceLimits, workerData } from 'node:worker_threads';\n" +
        'parentPort.postMessage({ workerData, env: process.env.ECHO_ENV, ' +
        'maxOldGenerationSizeMb: resourceLimits.maxOldGenerationSizeMb, execArgv: process.execArgv });\n',
    );
    writeFileSync(join(temp, 'package.json'), '{ "type": "module" }\n');
    expect(compiled.workerStart(pathToFileURL(file))).toEqual({ filename: file, execArgv: undefined });
    expect(await firstAnswer(compiled.startWorker(pathToFileURL(file), OPTIONS))).toEqual({
      workerData: OPTIONS.workerData,
      env: 'from the env option',
      maxOldGenerationSizeMb: 48,
      execArgv: process.execArgv,
    });
  });

  it('runs the password pool and the writer thread from their compiled modules', async () => {
    const checker: typeof import('../../src/passwords/password-checker.js') = await import(
      dist('src/passwords/password-checker.js')
    );
    const writer: typeof import('../../src/writer/background-writer.js') = await import(
      dist('src/writer/background-writer.js')
    );
    const passwords = checker.createPasswordChecker({ threads: 1 });
    try {
      const hash = await hashPassword('correct horse');
      expect(await passwords.verify('correct horse', hash)).toEqual({ matches: true, needsRehash: false });
      expect((await passwords.verify('wrong horse', hash)).matches).toBe(false);
    } finally {
      await passwords.close();
    }

    const database = await createTestDatabase('sqlite');
    await seedAccount(database, 'k'.repeat(64));
    const location = loadConfig(database.env).store;
    const store = await openStore(location);
    const stopped: unknown[] = [];
    const background = writer.createBackgroundWriter(location, store, (error) => stopped.push(error));
    try {
      const at = Date.now();
      await background.recordKeyUses([{ username: 'w', at }]);
      expect(background.lastWriterThread()).not.toBe(threadId);
      expect(await store.keyLastUsedAt('w')).toBe(at);
    } finally {
      await background.close();
      await store.close();
      await database.drop();
    }
    expect(stopped).toEqual([]);
  });
});

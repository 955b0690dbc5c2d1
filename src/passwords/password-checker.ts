import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { hashCost } from '../domain/password-hash-format.js';
import type { PasswordCheck } from './password-hash.js';
import type { CheckTask } from './password-worker.js';

/** Too many checks are waiting already: the caller is to say "try again" rather than queue more. */
export class PasswordChecksBusyError extends Error {
  constructor() {
    super('too many password checks are waiting');
    this.name = 'PasswordChecksBusyError';
  }
}

/** Password checks off the event loop, in a bounded pool of worker threads. */
export interface PasswordChecker {
  /** Checks `password` against `hash`; throws `PasswordChecksBusyError` when the queue is full. */
  verify(password: string, hash: string): Promise<PasswordCheck>;
  /**
   * Spends the time of a real check when there is no hash to check against (an unknown user, an
   * account without a password), on a hash of the kind and cost most stored hashes have, so
   * that the time of the answer does not tell which it was. Throws as `verify` does.
   */
  verifyAgainstDummy(password: string): Promise<void>;
  close(): Promise<void>;
}

export interface PasswordCheckerOptions {
  /** Worker threads (checks run at once); at most the machine's cores. */
  readonly threads?: number;
  /** Checks that may wait for a thread; past it a check is refused at once. */
  readonly maxQueue?: number;
  /**
   * Stored hashes (a sample), read at start: the dummy hash takes the most common kind and cost
   * among them (the current scrypt when there are none).
   */
  readonly storedHashes?: () => Promise<readonly string[]>;
  /** Told when the stored hashes cannot be read (the dummy is then the current scrypt). */
  readonly onSampleError?: (error: unknown) => void;
}

// Compiled, the worker is a .js file beside this one. Under the test runner both are .ts: the
// threads then start from a small module that registers tsx's loader first (a worker does not
// inherit the runner's), written to node_modules/.cache (the same text every time; written
// whole, then renamed, so that test processes running at once never read half of it).
const ownExtension = extname(fileURLToPath(import.meta.url));
const WORKER_URL = new URL(`./password-worker${ownExtension}`, import.meta.url);
let workerFile: string | undefined;

function passwordWorkerFile(): string {
  if (ownExtension !== '.ts') return fileURLToPath(WORKER_URL);
  if (workerFile === undefined) {
    const dir = fileURLToPath(new URL('../../node_modules/.cache/marketplace-api/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'password-worker.mjs');
    const temp = `${file}.${process.pid}.${threadId}.tmp`;
    const tsx = import.meta.resolve('tsx/esm/api');
    writeFileSync(
      temp,
      `const tsx = await import(${JSON.stringify(tsx)});\ntsx.register();\n` +
        `const worker = await import(${JSON.stringify(WORKER_URL.href)});\n` +
        'export const check = worker.check;\nexport const dummy = worker.dummy;\n',
    );
    renameSync(temp, file);
    workerFile = file;
  }
  return workerFile;
}

/** The most common kind and cost among `hashes` (as `hashCost` writes it); undefined when none is known. */
export function mostCommonCost(hashes: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const hash of hashes) {
    const cost = hashCost(hash);
    if (cost !== undefined) counts.set(cost, (counts.get(cost) ?? 0) + 1);
  }
  let best: string | undefined;
  let bestCount = 0;
  for (const [cost, count] of counts) {
    if (count > bestCount) [best, bestCount] = [cost, count];
  }
  return best;
}

export function createPasswordChecker(options: PasswordCheckerOptions = {}): PasswordChecker {
  const threads = Math.max(1, Math.min(options.threads ?? 2, availableParallelism()));
  const pool = new Piscina({
    filename: passwordWorkerFile(),
    minThreads: 0,
    maxThreads: threads,
    maxQueue: options.maxQueue ?? 16 * threads,
    // Threads end when idle: a service that sees a login now and then keeps no memory for them.
    idleTimeout: 60_000,
  });

  const run = async <T>(task: unknown, name: string): Promise<T> => {
    if (pool.queueSize >= pool.options.maxQueue) throw new PasswordChecksBusyError();
    try {
      return (await pool.run(task, { name })) as T;
    } catch (error) {
      // Piscina says a full queue with an error of its own; the pool's other errors are bugs.
      if (error instanceof Error && /queue is at limit/i.test(error.message)) throw new PasswordChecksBusyError();
      throw error;
    }
  };

  let dummy: Promise<string> | undefined;
  const dummyHash = () => {
    dummy ??= (async () => {
      let cost: string | undefined;
      try {
        cost = mostCommonCost((await options.storedHashes?.()) ?? []);
      } catch (error) {
        options.onSampleError?.(error);
      }
      return run<string>(cost, 'dummy');
    })();
    return dummy;
  };
  let closed = false;
  // Made now, so that the first unknown user takes no longer than the next.
  dummyHash().catch((error: unknown) => {
    dummy = undefined;
    // Closing the pool ends a dummy still being made: not a failure to tell of.
    if (!closed) options.onSampleError?.(error);
  });

  return {
    verify: (password, hash) => run<PasswordCheck>({ password, hash } satisfies CheckTask, 'check'),
    async verifyAgainstDummy(password) {
      await run<PasswordCheck>({ password, hash: await dummyHash() } satisfies CheckTask, 'check');
    },
    async close() {
      closed = true;
      // Not waited for: a dummy hash still being made (a worker thread starting, on a busy
      // machine) must not hold a shutdown up; destroying the pool ends it.
      dummy?.catch(() => undefined);
      await pool.destroy();
    },
  };
}

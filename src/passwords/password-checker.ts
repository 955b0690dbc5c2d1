import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { hashCost, isAcceptedPasswordHash } from '../domain/password-hash-format.js';
import { workerStart } from '../threads/start-worker.js';
import { CURRENT_COST, type PasswordCheck } from './password-hash.js';
import type { CheckTask } from './password-worker.js';

/** Too many checks are waiting already: the caller is to say "try again" rather than queue more. */
export class PasswordChecksBusyError extends Error {
  constructor() {
    super('too many password checks are waiting');
    this.name = 'PasswordChecksBusyError';
  }
}

/**
 * Password checks off the event loop, in a bounded pool of worker threads.
 *
 * Every check takes the same time, whoever logs in: it runs against one hash of each kind and
 * cost the store holds (`costs`: those of the sample read at start, the current scrypt, and any
 * met since), the account's own hash in its kind's place and a dummy of that kind in the others.
 * An unknown user, an account without a password, or one whose hash is of a kind this service
 * does not check, runs the dummies alone. So the answer's time tells neither whether the account
 * exists nor what kind of hash it has.
 */
export interface PasswordChecker {
  /** Checks `password` against `hash`; throws `PasswordChecksBusyError` when the queue is full. */
  verify(password: string, hash: string): Promise<PasswordCheck>;
  /**
   * Spends the time of a real check when there is no hash to check against (an unknown user, an
   * account without a password): the same checks `verify` runs, all against dummies. Throws as
   * `verify` does.
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
   * Stored hashes (a sample), read at start: a check runs against one hash of each kind and cost
   * among them, and of the current scrypt.
   */
  readonly storedHashes?: () => Promise<readonly string[]>;
  /** Told when the stored hashes cannot be read (checks then start with the current scrypt alone). */
  readonly onSampleError?: (error: unknown) => void;
  /**
   * Told, for each check, the kind and cost of every hash it runs against, in order (never a
   * hash or a password): what shows that every login costs the same.
   */
  readonly onCheck?: (costs: readonly string[]) => void;
}

const WORKER_URL = new URL('./password-worker.js', import.meta.url);

/** The kinds and costs a check runs against: those of the accepted `hashes`, and the current scrypt, sorted. */
export function checkCosts(hashes: readonly string[]): string[] {
  const costs = new Set<string>([CURRENT_COST]);
  for (const hash of hashes) {
    const cost = isAcceptedPasswordHash(hash) ? hashCost(hash) : undefined;
    if (cost !== undefined) costs.add(cost);
  }
  return [...costs].sort();
}

export function createPasswordChecker(options: PasswordCheckerOptions = {}): PasswordChecker {
  const threads = Math.max(1, Math.min(options.threads ?? 2, availableParallelism()));
  const pool = new Piscina({
    // The pool's threads start as every worker thread does (see start-worker.ts).
    ...workerStart(WORKER_URL),
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

  // One dummy hash per kind and cost, made in the pool (a hash costs a check's time) and kept.
  const dummies = new Map<string, Promise<string>>();
  const dummyOf = (cost: string) => {
    let made = dummies.get(cost);
    if (made === undefined) {
      made = run<string>(cost, 'dummy');
      // A failure (the pool closing, a full queue at start) is retried by the next check.
      made.catch(() => dummies.delete(cost));
      dummies.set(cost, made);
    }
    return made;
  };
  let closed = false;
  // Read now, so that the first unknown user takes no longer than the next.
  const known = (async () => {
    let sample: readonly string[] = [];
    try {
      sample = (await options.storedHashes?.()) ?? [];
    } catch (error) {
      options.onSampleError?.(error);
    }
    const costs = checkCosts(sample);
    await Promise.all(costs.map(dummyOf));
    return costs;
  })();
  known.catch((error: unknown) => {
    // Closing the pool ends a dummy still being made: not a failure to tell of.
    if (!closed) options.onSampleError?.(error);
  });
  // One list, added to in place (between awaits), so that kinds met by checks at once all stay.
  const costs: Promise<string[]> = known.catch(() => [CURRENT_COST]);

  /** The hashes a check runs against: a dummy of each known kind and cost, `own` in its kind's place. */
  const checkList = async (own: string | undefined) => {
    const ownCost = own !== undefined && isAcceptedPasswordHash(own) ? hashCost(own) : undefined;
    const kinds = await costs;
    if (ownCost !== undefined && !kinds.includes(ownCost)) {
      // A kind met for the first time (an import since the start): every later check runs it too.
      kinds.push(ownCost);
      kinds.sort();
    }
    const list = [...kinds];
    const hashes = await Promise.all(list.map((cost) => (cost === ownCost ? (own as string) : dummyOf(cost))));
    return { list, hashes, index: ownCost === undefined ? -1 : list.indexOf(ownCost) };
  };

  const check = async (password: string, own: string | undefined): Promise<PasswordCheck> => {
    const { list, hashes, index } = await checkList(own);
    options.onCheck?.(list);
    const answer = await run<PasswordCheck>({ password, hashes, index } satisfies CheckTask, 'check');
    // A hash of no kind checked here matches nothing (its checks above took the usual time).
    return index === -1 ? { matches: false, needsRehash: false } : answer;
  };

  return {
    verify: (password, hash) => check(password, hash),
    async verifyAgainstDummy(password) {
      await check(password, undefined);
    },
    async close() {
      closed = true;
      // Not waited for: a dummy hash still being made (a worker thread starting, on a busy
      // machine) must not hold a shutdown up; destroying the pool ends it.
      for (const made of dummies.values()) made.catch(() => undefined);
      await pool.destroy();
    },
  };
}

import { Redis } from 'ioredis';

/** The logger calls this module makes: pino's and Fastify's loggers both fit. */
export interface LimitsLogger {
  info(message: string): void;
  warn(message: string): void;
}

/** One counter to add to in the shared store. */
export interface SharedIncrement {
  readonly key: string;
  readonly by: number;
  /** How long the counter outlives its last write (its window and a little more). */
  readonly ttlMs: number;
}

/**
 * Counters every instance shares (Redis). Never throws and never waits long: when Redis cannot
 * be used right now, `add` answers undefined at once and the caller counts in its own process.
 */
export interface SharedCounters {
  /** Whether Redis is connected now. */
  readonly available: boolean;
  /** Adds to each counter; the totals after the adds, in order, or undefined when Redis cannot be used now. */
  add(increments: readonly SharedIncrement[]): Promise<readonly number[] | undefined>;
  close(): Promise<void>;
}

/** A command that takes longer fails (the request counts locally): Redis on loopback answers in well under 1 ms. */
const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 1_000;
/** Reconnection backoff: 100 ms doubling to 2 s, forever. */
const retryDelay = (attempt: number) => Math.min(100 * 2 ** Math.min(attempt - 1, 5), 2_000);

/**
 * Counters in Redis at `url`, their keys under `keyPrefix`. The offline queue is off and every
 * command has a timeout, so a Redis that is down or stuck never holds a request; the client
 * reconnects by itself. Connecting is logged at info, losing Redis once at warn, getting it back once at info;
 * the URL (it may hold a password) is never logged.
 */
export function createSharedCounters(url: string, keyPrefix: string, logger: LimitsLogger): SharedCounters {
  const redis = new Redis(url, {
    keyPrefix,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: retryDelay,
  });
  let state: 'starting' | 'up' | 'down' = 'starting';
  let closed = false;
  const lost = () => {
    if (state === 'down' || closed) return;
    state = 'down';
    logger.warn('limits: Redis unavailable; counting in this process only until it is back');
  };
  redis.on('ready', () => {
    logger.info(
      state === 'down' ? 'limits: Redis is back; counters are shared again' : 'limits: counters shared through Redis',
    );
    state = 'up';
  });
  redis.on('close', lost);
  // Each failed reconnection is an error event: the change of state above is all that is logged.
  redis.on('error', lost);

  return {
    get available() {
      return state === 'up' && redis.status === 'ready';
    },
    async add(increments) {
      if (state !== 'up' || redis.status !== 'ready' || increments.length === 0) return undefined;
      const pipeline = redis.pipeline();
      for (const { key, by, ttlMs } of increments) pipeline.incrby(key, by).pexpire(key, ttlMs);
      try {
        const results = await pipeline.exec();
        if (!results) return undefined;
        const totals: number[] = [];
        for (let index = 0; index < results.length; index += 2) {
          const [error, total] = results[index] as [Error | null, unknown];
          if (error || typeof total !== 'number') return undefined;
          totals.push(total);
        }
        return totals;
      } catch {
        // A timeout or a connection lost mid-command: this time, the caller counts locally.
        return undefined;
      }
    },
    async close() {
      closed = true;
      redis.disconnect();
    },
  };
}

import { Redis } from 'ioredis';
import { type CounterStore, SHARED_ONLY_TIMEOUT_MS, type TakeAnswer, UNANSWERED } from './counter-store.js';

/** The logger calls this module makes: pino's and Fastify's loggers both fit. */
export interface LimitsLogger {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * Counters every instance shares (Redis). Never throws and never waits long: when Redis cannot
 * be used right now, `take` answers undefined at once and the caller counts elsewhere.
 */
export interface SharedCounters extends CounterStore {
  /** Whether Redis is connected now. */
  readonly available: boolean;
  close(): Promise<void>;
}

/**
 * The take of CounterStore, atomic in Redis. KEYS: the counters; ARGV: 1 for partial, then each
 * counter's by, max and ttl (ms). Answers whether taken, then each counter's total and move.
 */
const TAKE_SCRIPT = `
local partial = ARGV[1] == '1'
local totals, moved, taken = {}, {}, 1
for i = 1, #KEYS do
  local current = tonumber(redis.call('GET', KEYS[i]) or '0')
  local by, max = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  if by > 0 and current + by > max then
    if partial then by = math.max(0, max - current) else taken = 0 end
  end
  totals[i], moved[i] = current, by
end
local answer = { taken }
for i = 1, #KEYS do
  if taken == 1 and moved[i] ~= 0 then
    local value = math.max(0, totals[i] + moved[i])
    redis.call('SET', KEYS[i], value, 'PX', ARGV[3 * i + 1])
    moved[i], totals[i] = value - totals[i], value
  elseif taken == 0 then
    moved[i] = 0
  end
  answer[#answer + 1] = totals[i]
  answer[#answer + 1] = moved[i]
end
return answer
`;

type ScriptedRedis = Redis & { limitsTake(...args: (string | number)[]): Promise<unknown> };

/** The script's answer read; undefined when it is not what the script answers. */
function answerOf(answer: unknown, count: number): TakeAnswer | undefined {
  if (!Array.isArray(answer) || answer.length !== 1 + 2 * count) return undefined;
  if (!answer.every((value) => typeof value === 'number')) return undefined;
  const numbers = answer as number[];
  const totals: number[] = [];
  const moved: number[] = [];
  for (let index = 1; index < numbers.length; index += 2) {
    totals.push(numbers[index] as number);
    moved.push(numbers[index + 1] as number);
  }
  return { taken: numbers[0] === 1, totals, moved };
}

/**
 * A take on the API's path that takes longer gives up (the request counts in the machine's
 * counters): Redis on loopback answers far sooner. A patient one (a counted failure) waits longer:
 * on a loaded machine, a failure counted elsewhere than the others' would not see them. One never
 * counted elsewhere (a login's places) waits longest: see SHARED_ONLY_TIMEOUT_MS.
 */
const COMMAND_TIMEOUT_MS = 250;
const PATIENT_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 1_000;
/** Reconnection backoff: 100 ms doubling to 2 s, forever. */
const retryDelay = (attempt: number) => Math.min(100 * 2 ** Math.min(attempt - 1, 5), 2_000);

/**
 * Counters in Redis at `url`, their keys under `keyPrefix`. The offline queue is off and every
 * command has a timeout, so a Redis that is down or stuck never holds a request; the client
 * reconnects by itself. Connecting is logged at info, losing Redis once at warn, getting it back once at info;
 * the URL (it may hold a password) is never logged. `fallback` says where counts go while Redis is
 * away: this process's own counters, or the machine's (the primary of `WORKERS` holds them).
 */
export function createSharedCounters(
  url: string,
  keyPrefix: string,
  logger: LimitsLogger,
  fallback: 'process' | 'machine' = 'process',
): SharedCounters {
  const redis = new Redis(url, {
    keyPrefix,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: SHARED_ONLY_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: retryDelay,
  });
  let state: 'starting' | 'up' | 'down' = 'starting';
  let closed = false;
  const lost = () => {
    if (state === 'down' || closed) return;
    state = 'down';
    logger.warn(
      fallback === 'machine'
        ? "limits: Redis unavailable; counting across this machine's workers only until it is back"
        : 'limits: Redis unavailable; counting in this process only until it is back',
    );
  };
  redis.on('ready', () => {
    logger.info(
      state === 'down' ? 'limits: Redis is back; counters are shared again' : 'limits: counters shared through Redis',
    );
    state = 'up';
  });
  redis.defineCommand('limitsTake', { lua: TAKE_SCRIPT });
  redis.on('close', lost);
  // Each failed reconnection is an error event: the change of state above is all that is logged.
  redis.on('error', lost);

  const connected = () => state === 'up' && redis.status === 'ready';

  return {
    get available() {
      return connected();
    },
    async take(takes, { partial = false, patient = false, sharedOnly = false } = {}) {
      if (!connected() || takes.length === 0) return undefined;
      const args: (string | number)[] = [takes.length, ...takes.map(({ key }) => key), partial ? 1 : 0];
      for (const { by, max, ttlMs } of takes) args.push(by, max, Math.ceil(ttlMs));
      let timer: NodeJS.Timeout | undefined;
      try {
        // ioredis sends the script's digest, and the script itself when Redis does not know it yet.
        const sent = (redis as ScriptedRedis).limitsTake(...args);
        const answer = sharedOnly
          ? await sent
          : await Promise.race([
              sent,
              new Promise((resolve) => {
                timer = setTimeout(resolve, patient ? PATIENT_TIMEOUT_MS : COMMAND_TIMEOUT_MS);
              }),
            ]);
        // A take given up on may still count in Redis: the budget is then only stricter.
        if (answer === undefined) sent.catch(() => undefined);
        const answered = answerOf(answer, takes.length);
        if (answered !== undefined) return answered;
      } catch {
        // A timeout or a connection lost mid-command: this time, the caller counts elsewhere.
      } finally {
        clearTimeout(timer);
      }
      // Still connected, Redis may yet count it: see TakeOptions.sharedOnly.
      return sharedOnly && connected() ? UNANSWERED : undefined;
    },
    async close() {
      closed = true;
      redis.disconnect();
    },
  };
}

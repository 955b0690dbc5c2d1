import cluster from 'node:cluster';
import {
  type CounterStore,
  type CounterTake,
  LocalCounterStore,
  SHARED_ONLY_TIMEOUT_MS,
  type TakeAnswer,
  UNANSWERED,
} from './counter-store.js';

const REQUEST = 'marketplace:counters-take';
const ANSWER = 'marketplace:counters-answer';
/**
 * How long a worker waits for the primary before counting in its own process: the primary answers
 * from memory, so only a primary that is gone or stuck takes that long.
 */
const ANSWER_TIMEOUT_MS = 2_000;

type TakeRequest = { type: typeof REQUEST; id: number; takes: CounterTake[]; partial: boolean };
type TakeReply = { type: typeof ANSWER; id: number; answer: TakeAnswer };

/**
 * In the primary of `WORKERS` > 1: holds the machine's counters and answers the workers' takes,
 * one at a time (the primary runs one message at a time: each take is atomic), so that every
 * worker counts against one budget without Redis, and when Redis is away.
 */
export function answerCountersForWorkers(store = new LocalCounterStore()): void {
  cluster.on('message', (worker, message: TakeRequest) => {
    if (message?.type !== REQUEST) return;
    const answer = store.take(message.takes, { partial: message.partial });
    // A worker that has just exited cannot be told: it asked nothing anyone still waits for. The
    // callback keeps a send that fails once under way (the worker gone meanwhile) from being an
    // 'error' event with no listener, which would end the primary.
    if (worker.isConnected())
      worker.send({ type: ANSWER, id: message.id, answer } satisfies TakeReply, () => undefined);
  });
}

/** In a worker: the counters the primary holds for every worker of this machine. */
export function primaryCounters(): CounterStore & { close(): void } {
  let nextId = 0;
  const pending = new Map<number, (answer: TakeAnswer | undefined) => void>();
  const onMessage = (message: TakeReply) => {
    if (message?.type !== ANSWER) return;
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    waiting?.(message.answer);
  };
  process.on('message', onMessage);
  return {
    get available() {
      return process.connected;
    },
    take(takes, { partial = false, sharedOnly = false } = {}) {
      if (!process.connected || process.send === undefined) return Promise.resolve(undefined);
      return new Promise<TakeAnswer | undefined>((resolve) => {
        const id = nextId++;
        const timer = setTimeout(
          () => {
            pending.delete(id);
            // The primary is there, only slow: it may still count this take (see TakeOptions.sharedOnly).
            resolve(sharedOnly && process.connected ? UNANSWERED : undefined);
          },
          sharedOnly ? SHARED_ONLY_TIMEOUT_MS : ANSWER_TIMEOUT_MS,
        );
        pending.set(id, (answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
        const failed = (error: Error | null) => {
          if (error === null) return;
          // The channel closed under it (the primary is gone): this process counts on its own.
          pending.delete(id);
          clearTimeout(timer);
          resolve(undefined);
        };
        try {
          process.send?.(
            { type: REQUEST, id, takes: [...takes], partial } satisfies TakeRequest,
            undefined,
            {},
            failed,
          );
        } catch (error) {
          failed(error as Error);
        }
      });
    },
    close() {
      process.off('message', onMessage);
    },
  };
}

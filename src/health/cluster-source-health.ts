import cluster from 'node:cluster';
import { readSourceHealth, type SourceHealth, UNKNOWN } from '../marketbob/source-health.js';
import type { SourceProbe } from './source-probe.js';

const REQUEST = 'marketplace:source-health-request';
const ANSWER = 'marketplace:source-health-answer';
/** How long a worker's `/readyz` waits for the primary before saying `unknown` (a probe must answer fast). */
const ANSWER_TIMEOUT_MS = 1_000;

type HealthRequest = { type: typeof REQUEST; id: number };
type HealthAnswer = { type: typeof ANSWER; id: number; health: SourceHealth };

/**
 * In the primary of `WORKERS` > 1, which runs the MarketBob follower: answers the workers that
 * ask how far the store is behind (each worker's `/readyz`), as cluster-metrics.ts answers for
 * the metrics.
 */
export function answerSourceHealth(health: () => SourceHealth): void {
  cluster.on('message', (worker, message: HealthRequest) => {
    if (message?.type !== REQUEST) return;
    // The callback: a worker gone meanwhile fails the send without ending the primary (see cluster-metrics.ts).
    worker.send({ type: ANSWER, id: message.id, health: health() } satisfies HealthAnswer, () => undefined);
  });
}

/** In a worker: a probe that asks the primary; `unknown` when it does not answer within a second. */
export function askPrimaryForSourceHealth(): SourceProbe {
  let nextId = 0;
  const pending = new Map<number, (health: SourceHealth) => void>();
  process.on('message', (message: HealthAnswer) => {
    if (message?.type !== ANSWER) return;
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    waiting?.(readSourceHealth(message.health));
  });
  return () =>
    new Promise<SourceHealth>((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(UNKNOWN);
      }, ANSWER_TIMEOUT_MS);
      pending.set(id, (health) => {
        clearTimeout(timer);
        resolve(health);
      });
      process.send?.({ type: REQUEST, id } satisfies HealthRequest);
    });
}

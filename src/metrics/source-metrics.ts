import { Gauge, type Registry } from 'prom-client';
import type { SourceHealth } from '../marketbob/source-health.js';

/**
 * The MarketBob source's gauges, read from the follower at each scrape: registered only in the
 * process that runs the follower (the one that serves alone, or the primary of WORKERS, whose
 * registry is added to the workers' sum), so that they are never summed over workers.
 *
 * - `marketbob_source_lag_seconds`: seconds since the store last held everything MarketBob had
 *   (`/readyz`'s `lag_seconds`, with its fraction); NaN on an instance standing by, which cannot know.
 * - `marketbob_source_behind`: 1 while `/readyz` says `behind`, else 0.
 */
export function registerSourceMetrics(registry: Registry, health: () => SourceHealth): void {
  new Gauge({
    name: 'marketbob_source_lag_seconds',
    help: 'Seconds since the store last held everything the MarketBob database had (NaN while another instance follows)',
    registers: [registry],
    collect() {
      this.set(health().lagSeconds ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'marketbob_source_behind',
    help: '1 while /readyz says the MarketBob source is behind (unreachable, first sync, or slower than behindSeconds), else 0',
    registers: [registry],
    collect() {
      this.set(health().state === 'behind' ? 1 : 0);
    },
  });
}

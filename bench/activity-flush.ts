import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivityCounter } from '../src/activity/activity-counter.js';
import { createNetworkHasher } from '../src/activity/client-network.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';

/**
 * What purchase-code activity costs a process, away from HTTP (issue 24): 60,000 validations of
 * 20,000 distinct codes (the HTTP bench's valid-codes case: every request names another code),
 * then the flush that writes them to a scratch SQLite store, six times over. The first flush
 * writes every day whole; the later ones find the days stored with the same networks.
 *
 *   node dist/bench/activity-flush.js
 */
const CODES = 20_000;
const dir = mkdtempSync(join(tmpdir(), 'activity-flush-'));
try {
  const store = await openSqliteStore(join(dir, 'store.db'));
  const counter = createActivityCounter(store, {
    enabled: true,
    flushSeconds: 300,
    retentionDays: 90,
    networkHash: createNetworkHasher(Buffer.alloc(32, 1)),
    onError: (error) => {
      throw error;
    },
  });
  const codes = Array.from({ length: CODES }, (_, index) => `bench-code-${index.toString().padStart(26, '0')}`);
  for (let round = 0; round < 6; round++) {
    const started = performance.now();
    for (let pass = 0; pass < 3; pass++) {
      for (const [index, code] of codes.entries()) counter.validated(`seller${index % 1000}`, code, '127.0.0.1');
    }
    const gathered = performance.now();
    await counter.flush();
    const flushed = performance.now();
    process.stdout.write(
      `round ${round + 1}: ${3 * CODES} validations counted in ${(gathered - started).toFixed(1)} ms, ` +
        `${CODES} codes flushed in ${(flushed - gathered).toFixed(1)} ms\n`,
    );
  }
  await counter.close();
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

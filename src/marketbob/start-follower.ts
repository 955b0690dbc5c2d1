import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import { openStore } from '../store/open-store.js';
import { openMarketbob } from './marketbob-connection.js';
import { MarketbobFollower } from './marketbob-follower.js';

/** A running follower; `stop()` ends it and closes what it opened. */
export interface RunningFollower {
  readonly follower: MarketbobFollower;
  stop(): Promise<void>;
}

/**
 * Starts following the MarketBob database the config names, in this process (the primary when
 * there are WORKERS: one follower per machine), over a store connection of its own: its writes
 * reach the serving store as another writer's do (SQLite's data_version, PostgreSQL's
 * notifications), so the API's caches drop what changed. Resolves once the first full sync has
 * been tried: done, or failed and logged (then it is tried again with back-off while the server
 * serves what the store holds).
 */
export async function startMarketbobFollower(
  config: Config,
  keys: KeyMaterial,
  logger: Logger,
): Promise<RunningFollower | undefined> {
  if (config.marketbob === undefined) return undefined;
  const store = await openStore(config.store);
  const db = openMarketbob(config.marketbob.url, { connections: 1 });
  const follower = new MarketbobFollower({
    db,
    store,
    keys,
    config: config.marketbob,
    logger: logger.child({ part: 'marketbob' }),
  });
  await follower.start();
  return {
    follower,
    async stop() {
      await follower.stop();
      await db.destroy();
      await store.close();
    },
  };
}

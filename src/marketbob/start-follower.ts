import type { Logger } from 'pino';
import type { KeyMaterial } from '../keys/server-secret.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import { createFollowerLock } from './follower-lock.js';
import type { MarketbobConfig } from './marketbob-config.js';
import { type MarketbobDb, openMarketbob } from './marketbob-connection.js';
import { MarketbobFollower } from './marketbob-follower.js';
import type { FollowedSettings } from './marketbob-settings.js';
import { type FollowerStatus, judgeSourceHealth, type SourceHealth, STANDBY } from './source-health.js';

/** The follower of this process (running, or standing by for the lock); `stop()` ends it. */
export interface RunningFollower {
  /** Whether this process follows now (it holds the lock). */
  following(): boolean;
  /** How far the store is behind MarketBob (`standby` while another instance follows). */
  health(): SourceHealth;
  /** The running follower's facts (see `judgeSourceHealth`); undefined while standing by. */
  status(): FollowerStatus | undefined;
  /** MarketBob's settings as last reported by this process's follower; undefined before its first sync. */
  settings(): FollowedSettings | undefined;
  stop(): Promise<void>;
}

interface Active {
  readonly follower: MarketbobFollower;
  readonly store: Store;
  readonly db: MarketbobDb;
}

/**
 * Keeps MarketBob's API switch (its `actions.api` setting) in the store, from the settings the
 * follower reports: it reaches every process and instance as any change does, and a `marketbob`
 * variant answers 404 while it is off.
 */
export function apiSwitchRecorder(store: Store, log: Logger): (settings: FollowedSettings) => void {
  return (settings) => {
    store.setSourceSetting('api_enabled', settings.apiEnabled ? '1' : '0').catch((error: unknown) => {
      log.warn(
        { reason: error instanceof Error ? error.message.split('\n', 1)[0] : 'unknown' },
        "marketbob: could not record MarketBob's API switch; it stays as it was until MarketBob's settings change again",
      );
    });
  };
}

/**
 * Follows the MarketBob database the config names, from this process (the primary when there
 * are WORKERS: one per machine) and, with PostgreSQL, from one instance of all those sharing the
 * store: the one holding the follower lock (follower-lock.ts). The others stand by, try the lock
 * every `pollSeconds`, and take over when its holder stops; a holder that loses its lock's
 * connection stops following and competes again.
 *
 * The follower writes over a store connection of its own: its commits reach the serving store
 * as another writer's do (SQLite's data_version, PostgreSQL's notifications), so the API's caches
 * drop what changed. When the lock was free and the store is empty, resolves once the first full
 * sync has been tried, so that a sole instance serves MarketBob's data from its first request.
 */
export async function startMarketbobFollower(
  config: { readonly marketbob: MarketbobConfig | undefined; readonly store: StoreLocation },
  keys: KeyMaterial,
  logger: Logger,
  /** Called with MarketBob's settings after the first full sync and on every change (see `FollowerOptions.onSettings`). */
  onSettings?: (settings: FollowedSettings) => void,
): Promise<RunningFollower | undefined> {
  const marketbob = config.marketbob;
  if (marketbob === undefined) return undefined;
  const log = logger.child({ part: 'marketbob' });
  const lock = createFollowerLock(config.store);
  const everyMs = marketbob.pollSeconds * 1000;
  let active: Active | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let saidStandingBy = false;
  let settings: FollowedSettings | undefined;

  const begin = async () => {
    const store = await openStore(config.store);
    // Two connections: the polls' and the reconciliation's reads run side by side.
    const db = openMarketbob(marketbob.url, { connections: 2 });
    const recordApiSwitch = apiSwitchRecorder(store, log);
    const follower = new MarketbobFollower({
      db,
      store,
      keys,
      config: marketbob,
      logger: log,
      storeLocation: config.store,
      onSettings: (reported) => {
        settings = reported;
        recordApiSwitch(reported);
        onSettings?.(reported);
      },
    });
    active = { follower, store, db };
    // An empty store is synced before the server listens, so that its first answers are
    // MarketBob's; a store that holds a past sync serves it at once while the sync runs (a
    // restart over a large marketplace would otherwise wait for a whole sync to listen).
    const first = follower.start();
    if (await store.isEmpty()) await first;
  };
  const end = async () => {
    const last = active;
    active = undefined;
    if (last === undefined) return;
    await last.follower.stop();
    await last.db.destroy();
    await last.store.close();
  };
  const check = async () => {
    if (stopped) return;
    if (active !== undefined && !lock.held()) {
      log.warn('marketbob: the follower lock was lost; standing by');
      await end();
    }
    if (active === undefined && (await lock.tryAcquire())) {
      if (saidStandingBy) log.info('marketbob: taking over the following');
      saidStandingBy = false;
      await begin();
    } else if (active === undefined && !saidStandingBy) {
      log.info('marketbob: another instance follows this store; standing by');
      saidStandingBy = true;
    }
  };
  const loop = async () => {
    try {
      await check();
    } catch (error) {
      log.error(
        { reason: error instanceof Error ? error.message.split('\n', 1)[0] : 'unknown' },
        'marketbob: start failed',
      );
    }
    if (!stopped) timer = setTimeout(() => void loop(), everyMs);
  };
  await loop();
  return {
    following: () => active !== undefined,
    status: () => active?.follower.status(),
    settings: () => settings,
    health: () =>
      active === undefined ? STANDBY : judgeSourceHealth(active.follower.status(), marketbob.behindSeconds),
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await end();
      await lock.release();
    },
  };
}

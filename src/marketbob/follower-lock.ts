import pg from 'pg';
import { withDefaultUser } from '../store/postgres/postgres-store.js';
import type { StoreLocation } from '../store/store-location.js';

/**
 * The right to follow MarketBob: exactly one follower writes into a store at a time. With
 * PostgreSQL, every instance sharing the store competes for a session advisory lock on a
 * connection of its own; the lock goes with the session, so when the holder stops (or its
 * connection dies) another instance takes it at its next try. With SQLite the store is one
 * machine's, whose one follower runs in the primary: the lock is always held.
 */
export interface FollowerLock {
  /** Tries to take the lock; true when this process holds it (now or already). */
  tryAcquire(): Promise<boolean>;
  /** Whether the lock is still held (false once its connection is gone). */
  held(): boolean;
  release(): Promise<void>;
}

/** The lock's key: one per store, whatever else shares the PostgreSQL server. */
const LOCK_NAME = 'marketplace-api:marketbob-follower';

export function createFollowerLock(store: StoreLocation): FollowerLock {
  if (store.kind === 'sqlite') {
    return { tryAcquire: async () => true, held: () => true, release: async () => {} };
  }
  let client: pg.Client | undefined;
  let holding = false;
  const drop = () => {
    holding = false;
    const gone = client;
    client = undefined;
    gone?.end().catch(() => {});
  };
  return {
    async tryAcquire() {
      if (holding) return true;
      try {
        if (client === undefined) {
          const fresh = new pg.Client({ connectionString: withDefaultUser(store.url), connectionTimeoutMillis: 5_000 });
          // A dead session has lost the lock: say so, and open another at the next try.
          fresh.on('error', drop);
          fresh.on('end', () => {
            if (client === fresh) drop();
          });
          await fresh.connect();
          client = fresh;
        }
        const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS taken', [
          LOCK_NAME,
        ]);
        holding = rows[0]?.taken === true;
        return holding;
      } catch {
        drop();
        return false;
      }
    },
    held: () => holding,
    async release() {
      const last = client;
      holding = false;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}

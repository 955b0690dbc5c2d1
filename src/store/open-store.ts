import type { StoreLocation } from '../config.js';
import { openPostgresStore } from './postgres.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './store.js';

/** Opens and migrates the store the configuration names. */
export async function openStore(location: StoreLocation): Promise<Store> {
  switch (location.kind) {
    case 'sqlite':
      return openSqliteStore(location.path);
    case 'postgres':
      return openPostgresStore(location.url, location);
  }
}

import type { StoreLocation } from '../config.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './store.js';

/** Opens and migrates the store the configuration names. */
export async function openStore(location: StoreLocation): Promise<Store> {
  switch (location.kind) {
    case 'sqlite':
      return openSqliteStore(location.path);
    case 'postgres':
      throw new Error('PostgreSQL support is not built yet');
  }
}

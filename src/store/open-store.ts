import { openPostgresStore } from './postgres/postgres-store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';
import type { StoreLocation } from './store-location.js';

export interface OpenStoreOptions {
  /**
   * Make the SQLite file's directory (mode 0700) when it does not exist: for the default store
   * (`./data`) only; a directory a DATABASE_URL names must exist (see prepareSqliteFile).
   */
  readonly createDirectory?: boolean;
}

/** Opens and migrates the store the configuration names. */
export async function openStore(location: StoreLocation, options: OpenStoreOptions = {}): Promise<Store> {
  switch (location.kind) {
    case 'sqlite':
      return openSqliteStore(location.path, options.createDirectory ?? false);
    case 'postgres':
      return openPostgresStore(location.url, location);
  }
}

import { dirname, join } from 'node:path';
import type { StoreLocation } from '../store/store-location.js';
import { deriveKeyMaterial, type KeyMaterial, loadOrCreateSecretFile } from './server-secret.js';

/**
 * The server secret: SECRET_KEY when set; with SQLite and no SECRET_KEY, the `secret.key` file
 * beside the database, made on first use. (PostgreSQL without SECRET_KEY is refused by the config.)
 */
export function loadKeyMaterial(config: {
  readonly secretKey: string | undefined;
  readonly store: StoreLocation;
}): KeyMaterial {
  if (config.secretKey !== undefined) return deriveKeyMaterial(config.secretKey);
  if (config.store.kind !== 'sqlite') throw new Error('SECRET_KEY is required with PostgreSQL');
  const directory = config.store.path === ':memory:' ? '.' : dirname(config.store.path);
  return deriveKeyMaterial(loadOrCreateSecretFile(join(directory, 'secret.key')));
}

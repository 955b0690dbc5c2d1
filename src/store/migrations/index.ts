import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';

/** Every migration in order; names are never changed once released. */
export function migrationProvider(): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '0001-initial': initial,
  };
  return { getMigrations: async () => migrations };
}

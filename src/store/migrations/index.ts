import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';
import { workspace } from './0002-workspace.js';

/** Every migration in order; names are never changed once released. */
export function migrationProvider(): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '0001-initial': initial,
    '0002-workspace': workspace,
  };
  return { getMigrations: async () => migrations };
}

import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';
import { workspace } from './0002-workspace.js';
import { sessionBindings } from './0003-session-bindings.js';
import { replacedKeys } from './0004-replaced-keys.js';
import { keyDates } from './0005-key-dates.js';
import { keyUsage } from './0006-key-usage.js';
import { marketbobUsers } from './0007-marketbob-users.js';

/** Every migration in order; names are never changed once released. */
export function migrationProvider(): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '0001-initial': initial,
    '0002-workspace': workspace,
    '0003-session-bindings': sessionBindings,
    '0004-replaced-keys': replacedKeys,
    '0005-key-dates': keyDates,
    '0006-key-usage': keyUsage,
    '0007-marketbob-users': marketbobUsers,
  };
  return { getMigrations: async () => migrations };
}

import type { Migration, MigrationProvider } from 'kysely';
import type { Dialect } from '../dialect.js';
import { initial } from './0001-initial.js';
import { workspace } from './0002-workspace.js';
import { sessionBindings } from './0003-session-bindings.js';
import { replacedKeys } from './0004-replaced-keys.js';
import { keyDates } from './0005-key-dates.js';
import { keyUsage } from './0006-key-usage.js';
import { marketbobUsers } from './0007-marketbob-users.js';
import { purchaseActivity } from './0008-purchase-activity.js';
import { webhooks } from './0009-webhooks.js';
import { marketbobSource } from './0010-marketbob-source.js';
import { marketbobLogins } from './0012-marketbob-logins.js';
import { keyOrigins } from './0013-key-origins.js';
import { namedKeys } from './0014-named-keys.js';
import { activations } from './0015-activations.js';
import { changeLog } from './0016-change-log.js';
import { signingKeys } from './0017-signing-keys.js';

const ACTIVITY_MIGRATIONS: Record<string, Migration> = { '0008-purchase-activity': purchaseActivity };

/**
 * Every migration of the store in order; names are never changed once released. On SQLite the
 * activity tables are not in the store's file but in one of their own (activityMigrationProvider):
 * their writes every few seconds would otherwise tell every other process that the store changed.
 */
export function migrationProvider(dialect: Dialect): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '0001-initial': initial,
    '0002-workspace': workspace,
    '0003-session-bindings': sessionBindings,
    '0004-replaced-keys': replacedKeys,
    '0005-key-dates': keyDates,
    '0006-key-usage': keyUsage,
    '0007-marketbob-users': marketbobUsers,
    ...(dialect === 'postgres' ? ACTIVITY_MIGRATIONS : {}),
    '0009-webhooks': webhooks,
    '0010-marketbob-source': marketbobSource,
    '0012-marketbob-logins': marketbobLogins,
    '0013-key-origins': keyOrigins,
    '0014-named-keys': namedKeys,
    '0015-activations': activations,
    '0016-change-log': changeLog(dialect),
    '0017-signing-keys': signingKeys,
  };
  return { getMigrations: async () => migrations };
}

/** The migrations of SQLite's activity file (see migrationProvider). */
export function activityMigrationProvider(): MigrationProvider {
  return { getMigrations: async () => ACTIVITY_MIGRATIONS };
}

import type BetterSqlite3 from 'better-sqlite3';
import type { ImportSession } from './store.js';

/** Runs an import in one SQLite transaction. (To be written with the importer.) */
export async function runSqliteImport<T>(
  _sqlite: BetterSqlite3.Database,
  _work: (session: ImportSession) => Promise<T>,
): Promise<T> {
  throw new Error('not built yet');
}

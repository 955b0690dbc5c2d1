import type { NamedQuery } from './named-query.js';

/**
 * Runs a query compiled once (see named-query.ts) with the caller's values, bound by name. The SQL
 * of a compiled query does not depend on its values, so each dialect can prepare it once and reuse
 * it per request.
 */
export interface QueryRunner {
  first<R, V>(query: NamedQuery<R, V>, values: V): Promise<R | undefined>;
  all<R, V>(query: NamedQuery<R, V>, values: V): Promise<R[]>;
}

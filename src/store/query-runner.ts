import type { CompiledQuery } from 'kysely';

/**
 * Runs a query compiled once by Kysely with new parameter values. The SQL of a compiled query
 * does not depend on its values, so each dialect can prepare it once and reuse it per request.
 */
export interface QueryRunner {
  first<R>(query: CompiledQuery<R>, parameters: readonly unknown[]): Promise<R | undefined>;
  all<R>(query: CompiledQuery<R>, parameters: readonly unknown[]): Promise<R[]>;
}

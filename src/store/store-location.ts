/** How long the serving process waits on PostgreSQL before it answers 503. */
export interface PostgresTimeouts {
  /** Longest a statement may run (the server's statement_timeout; the client gives up a second later). */
  readonly statementTimeoutMs: number;
  /** Longest a query waits for a connection: a new one, or a free one of a full pool. */
  readonly connectTimeoutMs: number;
}

/** Where the store is. A PostgreSQL store also says how many connections each process may open, and how long it waits. */
export type StoreLocation =
  | { kind: 'sqlite'; path: string }
  | ({ kind: 'postgres'; url: string; poolSize: number } & PostgresTimeouts);

/** The waits a PostgreSQL store has when the config names none. */
export const DEFAULT_POSTGRES_TIMEOUTS: PostgresTimeouts = { statementTimeoutMs: 5_000, connectTimeoutMs: 3_000 };

/** The stores the service runs on. */
export type Dialect = 'sqlite' | 'postgres';

import type { IncomingHttpHeaders } from 'node:http';
import type { BudgetState } from '../limits/limits.js';

/**
 * What the API's endpoints and budgets read of a request. Fastify's request is one (the limits
 * fields are its decorations); the fast lane builds its own (see fast-lane.ts), so that both paths
 * run the same endpoint code.
 */
export interface ApiRequest {
  readonly headers: IncomingHttpHeaders;
  readonly query: unknown;
  readonly body: unknown;
  /** The client's address (after trustProxy); undefined once its socket has closed. */
  readonly ip: string | undefined;
  /** The id the client is counted under (clientIdOf), set at admission. */
  limitsClient: string;
  /** The id the key's budgets count this request under (client and account), once the key named an account. */
  limitsKeyClient: string | undefined;
  /** What the RateLimit-* headers show for this request. */
  limitsState: BudgetState | undefined;
}

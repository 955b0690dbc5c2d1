import type { IncomingHttpHeaders } from 'node:http';
import type { BudgetState } from '../limits/limits.js';

/**
 * What the API's endpoints and budgets read of a request, as the door (src/server/api-door.ts)
 * builds it: the transport stays out of the API's logic.
 */
export interface ApiRequest {
  readonly headers: IncomingHttpHeaders;
  readonly query: unknown;
  readonly body: unknown;
  /**
   * When the request came, read once for all who ask: `started` (performance.now()) for the
   * caches' change check and the latency, `at` (ms since the epoch, as Date.now(), from that same
   * reading) for the budgets' windows and the key's last use. Reading a virtual machine's clock
   * is not free, and a request read it seven times.
   */
  readonly started: number;
  readonly at: number;
  /** The client's address (after trustProxy); undefined once its socket has closed. */
  readonly ip: string | undefined;
  /** The id the client is counted under (clientIdOf), set when the client is admitted (ApiLimits.admitClient). */
  limitsClient: string;
  /** The id the key's budgets count this request under (client and account), once the key named an account. */
  limitsKeyClient: string | undefined;
  /** What the RateLimit-* headers show for this request. */
  limitsState: BudgetState | undefined;
  /** The path of the endpoint answering it, relative to the variant's base (set by the answerer): what a key's scope is checked against. */
  endpointPath?: string | undefined;
}

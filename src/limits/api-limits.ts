import type { LimitsConfig } from '../config.js';
import { ApiError } from '../http/api-error.js';
import type { ApiRequest } from '../http/api-request.js';
import type { JsonReply } from '../http/reply.js';
import type { ErrorKind } from '../variants/error-kinds.js';
import { clientIdOf } from './client-id.js';
import type { BudgetState, Limits } from './limits.js';

declare module 'fastify' {
  /** Fastify's request carries the fields ApiRequest adds to it (decorated at admission). */
  interface FastifyRequest {
    limitsClient: string;
    limitsAccount: string | undefined;
    limitsState: BudgetState | undefined;
  }
}

/** Failures that spend a budget: guessing keys, purchase codes or item ids. */
export const COUNTED_FAILURES: ReadonlySet<ErrorKind> = new Set([
  'invalidRequest',
  'itemNotFound',
  'invalidPurchaseCode',
]);

/** A 429: its Retry-After, and the budget it found spent. */
export class TooManyRequestsError extends ApiError {
  constructor(
    readonly retryAfter: number,
    readonly state: BudgetState | undefined,
  ) {
    super('tooManyRequests');
  }
}

/**
 * The API's three budgets over the shared machinery:
 * - `clientFailures`: failures with no valid key (unknown, replaced or suspended keys), per client;
 * - `keyClientFailures`: failures with a valid key (invalid purchase codes, missing items), per
 *   account and client, so a guesser holding a seller's key is stopped and that seller's other
 *   clients are not;
 * - `keyRequests`: every request a valid key makes, per account.
 *
 * The RateLimit-* headers show the key's request budget once the key named an account, else the
 * client's failure budget; a 429 shows the budget it found spent.
 */
export interface ApiLimits {
  /**
   * Admission, before the body is read: names the client, puts its failure budget on the
   * headers, and answers the seconds it must wait when that budget is spent (else 0).
   */
  admitClient(request: ApiRequest, reply: JsonReply): number;
  /**
   * Once the key named an active account: takes one request from the key's budget. Throws a
   * TooManyRequestsError when that budget, or this client's failure budget for the key, is spent.
   */
  admitAccount(request: ApiRequest, username: string): void;
  /** Before a 200: the headers. Never waits. */
  answered(request: ApiRequest, reply: JsonReply): void;
  /** Before an error answer: counts the failure when its kind counts (waiting for Redis), then the headers. */
  failed(request: ApiRequest, reply: JsonReply, error: ApiError): Promise<void>;
}

export function setRateLimitHeaders(reply: JsonReply, state: BudgetState | undefined): void {
  if (!state) return;
  reply.header('ratelimit-limit', state.limit);
  reply.header('ratelimit-remaining', state.remaining);
  reply.header('ratelimit-reset', state.resetSeconds);
}

export function createApiLimits(limits: Limits, config: LimitsConfig): ApiLimits {
  const clientFailures = limits.failureBudget('clientFailures', config.clientFailures);
  const keyClientFailures = limits.failureBudget('keyClientFailures', config.keyClientFailures);
  const keyRequests = limits.requestBudget('keyRequests', config.keyRequests);
  // A client id holds no space, so the first one splits this id: no two pairs share it.
  const keyClient = (request: ApiRequest, username: string) => `${request.limitsClient} ${username}`;

  return {
    admitClient(request, reply) {
      // A socket already closed has no address left to read.
      const client = clientIdOf(request.ip ?? 'unknown');
      request.limitsClient = client;
      const state = clientFailures.state(client);
      request.limitsState = state;
      setRateLimitHeaders(reply, state);
      // One reading of the clock for both: Retry-After then equals RateLimit-Reset.
      return state?.remaining === 0 ? state.resetSeconds : 0;
    },
    admitAccount(request, username) {
      request.limitsAccount = username;
      const id = keyClient(request, username);
      const retryAfter = keyClientFailures.retryAfter(id);
      if (retryAfter > 0) throw new TooManyRequestsError(retryAfter, keyClientFailures.state(id));
      const taken = keyRequests.take(username);
      request.limitsState = taken;
      if (taken && taken.retryAfter > 0) throw new TooManyRequestsError(taken.retryAfter, taken);
    },
    answered(request, reply) {
      setRateLimitHeaders(reply, request.limitsState);
    },
    async failed(request, reply, error) {
      if (error instanceof TooManyRequestsError) {
        reply.header('retry-after', error.retryAfter);
        setRateLimitHeaders(reply, error.state);
        return;
      }
      if (COUNTED_FAILURES.has(error.kind)) {
        const username = request.limitsAccount;
        if (username === undefined) {
          await clientFailures.recordFailure(request.limitsClient);
          request.limitsState = clientFailures.state(request.limitsClient);
        } else {
          await keyClientFailures.recordFailure(keyClient(request, username));
        }
      }
      setRateLimitHeaders(reply, request.limitsState);
    },
  };
}

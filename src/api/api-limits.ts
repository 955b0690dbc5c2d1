import { clientIdOf } from '../limits/client-id.js';
import type { BudgetState, Limits, TakenRequest } from '../limits/limits.js';
import type { LimitsConfig } from '../limits/limits-config.js';
import type { CounterSlot } from '../limits/window-counter.js';
import type { ErrorKind } from '../variants/error-kinds.js';
import { ApiError } from './api-error.js';
import type { ApiRequest } from './api-request.js';
import { after, type MaybePromise } from './maybe-async.js';
import type { JsonReply } from './reply.js';

/** Failures that spend a budget: guessing keys, purchase codes or item ids. */
export const COUNTED_FAILURES: ReadonlySet<ErrorKind> = new Set([
  'invalidRequest',
  'itemNotFound',
  'invalidPurchaseCode',
]);

/**
 * Whose budget a 429 found spent, as the metrics name it: the client's failures, the key and
 * client's budgets, or the key's activity reports.
 */
export type Limiter = 'client' | 'key' | 'report';

/** A 429: its Retry-After, the budget it found spent, and whose budget that is (the metrics' limiter). */
export class TooManyRequestsError extends ApiError {
  constructor(
    readonly retryAfter: number,
    readonly state: BudgetState | undefined,
    readonly limiter: Limiter = 'key',
  ) {
    super('tooManyRequests');
  }
}

/**
 * The API's four budgets over the shared machinery:
 * - `clientFailures`: failures with no valid key (unknown, replaced or suspended keys), per client;
 * - `keyClientFailures`: failures with a valid key (invalid purchase codes, missing items), per
 *   account and client, so a guesser holding a seller's key is stopped and that seller's other
 *   clients are not;
 * - `keyRequests`: every request a valid key makes, per account and client. Not per account: a
 *   seller's key ships inside their software, so anyone may hold it, and a budget per account
 *   would let one flooding client refuse every install of that seller. There is no per-key ceiling
 *   on requests (docs/decisions.md#limits says why);
 * - `keyReports`: the activity reports (endpoints 5 and 6) a key asks for, per key whatever the
 *   client: a report costs its seller's share of the machine whoever asks, so the total is bounded.
 *   A seller's dashboard uses a named key of its own, which the key shipped in their software
 *   cannot spend.
 *
 * The RateLimit-* headers show the budget closest to running out: the one with the least remaining
 * among those that apply to this request (the client's failure budget always; the key and client's
 * failure and request budgets once the key named an account; the key's report budget on a report).
 * A 429 shows the budget it found spent.
 */
export interface ApiLimits {
  /**
   * The client's admission, before the body is read: names the client and answers the seconds it
   * must wait when its failure budget is spent (else 0). Only a refusal's headers are set here; an
   * admitted request's are set once, with its answer (`answered`, `failed`).
   */
  admitClient(request: ApiRequest, reply: JsonReply): number;
  /**
   * Once the key named an active account: takes one request from the key and client's budget.
   * Answers the TooManyRequestsError to send when that budget, or this client's failure budget for
   * the key, is spent; else undefined. A promise only while the request waits for a grant of the
   * shared counter (see RequestBudget.take).
   */
  admitAccount(request: ApiRequest, account: BudgetHolder): MaybePromise<TooManyRequestsError | undefined>;
  /**
   * Once admitAccount let the key in, on an activity report's endpoint: takes one report from the
   * key's budget, whichever client asks. Answers the TooManyRequestsError to send when it is spent;
   * else undefined. A promise only while the request waits for a grant of the shared counter.
   */
  admitReport(request: ApiRequest, account: BudgetHolder): MaybePromise<TooManyRequestsError | undefined>;
  /** Before a 200, or an answer that no budget counts (a body refused, a failure of the service's own): the headers. Never waits. */
  answered(request: ApiRequest, reply: JsonReply): void;
  /**
   * Before an error answer: the headers, and the error to answer. A failure whose kind counts first
   * takes its place in its budget: when the budget is spent (other failures took the last places
   * while this one was in flight), the answer is that budget's 429 instead. A promise only while the
   * take waits for the shared counters; at once when this process counts alone.
   */
  failed(request: ApiRequest, reply: JsonReply, error: ApiError): MaybePromise<ApiError>;
}

/**
 * What the key's budgets keep on a cached account between its requests (CachedAccount's `state`):
 * the last client and key-and-client id counted for it, and that id's request counter. A seller's
 * software calls from one client again and again, so the id is made once and then found again (a
 * string made per request was also hashed anew by every lookup), and its requests are counted
 * without a lookup (CounterSlot).
 */
export interface KeyClientMemo extends CounterSlot {
  limitsClient: string | undefined;
  limitsKeyClient: string | undefined;
}

/** The account as the key's budgets see it: who it is, and the memo they keep on it. */
export interface BudgetHolder {
  readonly username: string;
  /** The named key (migration 0014) that opened the account; undefined for the account's own key. */
  readonly keyId: string | undefined;
  readonly state: KeyClientMemo;
}

/** The key's id in its budgets: a named key's budgets are its own, not its account's key's. */
function keyIdOf(account: BudgetHolder): string {
  return account.keyId === undefined ? account.username : `${account.username}\u0000${account.keyId}`;
}

export function setRateLimitHeaders(reply: JsonReply, state: BudgetState | undefined): void {
  if (!state) return;
  reply.header('ratelimit-limit', state.limit);
  reply.header('ratelimit-remaining', state.remaining);
  reply.header('ratelimit-reset', state.resetSeconds);
}

/**
 * The one of two budgets closer to running out: the least remaining. On a tie `shown` stays: both
 * are as close, and a budget's header does not change for nothing.
 */
export function tighter(shown: BudgetState | undefined, other: BudgetState | undefined): BudgetState | undefined {
  if (other === undefined) return shown;
  return shown === undefined || other.remaining < shown.remaining ? other : shown;
}

/** The request counted (or refused) in the key and client's budget: its 429, or its state kept for the headers. */
function admitted(
  request: ApiRequest,
  failures: BudgetState | undefined,
  taken: TakenRequest | undefined,
): TooManyRequestsError | undefined {
  if (taken && taken.retryAfter > 0) return new TooManyRequestsError(taken.retryAfter, taken);
  request.limitsState = tighter(tighter(request.limitsState, failures), taken);
  return undefined;
}

/** A report counted (or refused) in the key's report budget: its 429, or its state kept for the headers. */
function reportAdmitted(request: ApiRequest, taken: TakenRequest | undefined): TooManyRequestsError | undefined {
  if (taken && taken.retryAfter > 0) return new TooManyRequestsError(taken.retryAfter, taken, 'report');
  request.limitsState = tighter(request.limitsState, taken);
  return undefined;
}

/** A 429's headers: its Retry-After, and the budget it found spent. */
function refusal(reply: JsonReply, error: TooManyRequestsError): TooManyRequestsError {
  reply.header('retry-after', error.retryAfter);
  setRateLimitHeaders(reply, error.state);
  return error;
}

export function createApiLimits(limits: Limits, config: LimitsConfig): ApiLimits {
  const clientFailures = limits.failureBudget('clientFailures', config.clientFailures);
  const keyClientFailures = limits.failureBudget('keyClientFailures', config.keyClientFailures);
  const keyRequests = limits.requestBudget('keyRequests', config.keyRequests);
  const keyReports = limits.requestBudget('keyReports', config.keyReports);

  return {
    admitClient(request, reply) {
      // A socket already closed has no address left to read.
      const client = clientIdOf(request.ip ?? 'unknown');
      request.limitsClient = client;
      const state = clientFailures.state(client, request.at);
      request.limitsState = state;
      // Admitted, the headers wait for the answer: by then a key's budget may be the one shown.
      if (state?.remaining !== 0) return 0;
      setRateLimitHeaders(reply, state);
      // One reading of the clock for both: Retry-After then equals RateLimit-Reset.
      return state.resetSeconds;
    },
    admitAccount(request, account) {
      const client = request.limitsClient;
      const memo = account.state;
      let id = memo.limitsKeyClient;
      if (id === undefined || memo.limitsClient !== client) {
        // A client id holds no space, so the first one splits this id: no two pairs share it.
        id = `${client} ${keyIdOf(account)}`;
        memo.limitsClient = client;
        memo.limitsKeyClient = id;
      }
      request.limitsKeyClient = id;
      const failures = keyClientFailures.state(id, request.at);
      if (failures?.remaining === 0) return new TooManyRequestsError(failures.resetSeconds, failures);
      const taken = keyRequests.take(id, request.at, memo);
      // Not `after`: no closure is made for the count nearly always taken at once.
      return taken instanceof Promise
        ? taken.then((counted) => admitted(request, failures, counted))
        : admitted(request, failures, taken);
    },
    admitReport(request, account) {
      const taken = keyReports.take(keyIdOf(account), request.at);
      return taken instanceof Promise
        ? taken.then((counted) => reportAdmitted(request, counted))
        : reportAdmitted(request, taken);
    },
    answered(request, reply) {
      setRateLimitHeaders(reply, request.limitsState);
    },
    failed(request, reply, error) {
      if (error instanceof TooManyRequestsError) return refusal(reply, error);
      if (!error.guess && !COUNTED_FAILURES.has(error.kind)) {
        setRateLimitHeaders(reply, request.limitsState);
        return error;
      }
      const id = request.limitsKeyClient;
      const place =
        id === undefined ? clientFailures.takeFailure(request.limitsClient) : keyClientFailures.takeFailure(id);
      return after(place, (taken) => {
        if (taken !== undefined && taken.retryAfter > 0) {
          return refusal(reply, new TooManyRequestsError(taken.retryAfter, taken, id === undefined ? 'client' : 'key'));
        }
        // Only this budget moved, and only down: what was shown or this one is now the closest.
        request.limitsState = tighter(request.limitsState, taken);
        setRateLimitHeaders(reply, request.limitsState);
        return error;
      });
    },
  };
}

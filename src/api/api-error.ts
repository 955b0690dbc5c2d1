import type { ErrorKind } from '../variants/error-kinds.js';
import { after, type MaybePromise } from './maybe-async.js';

/**
 * An error the API answers with: its kind picks the status and message; `detail` overrides the
 * catalogue text. The hot paths' refusals (a wrong key, code or item, a spent budget) are returned
 * as values, not thrown: a throw cost more than the lookup that found the refusal (V8 builds a
 * message with the thrower's source position for every throw no JavaScript handler is predicted to
 * catch, and a function that throws on most calls ran unoptimised). Rarer ones may still be thrown.
 */
export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly detail?: string,
    /**
     * Spends the guessing budget whatever its kind: MarketBob's shape answers an unknown key with
     * its endpoint's own 404 (`No items found`), which must cost a guesser as a 401 would.
     */
    readonly guess = false,
  ) {
    super(detail ?? kind);
    this.name = 'ApiError';
  }

  private static readonly shared = new Map<ErrorKind, ApiError>();
  private static readonly guesses = new Map<ErrorKind, ApiError>();

  /** One shared instance per kind, as `of`, that spends the guessing budget (see `guess`). */
  static guessed(kind: ErrorKind): ApiError {
    let error = ApiError.guesses.get(kind);
    if (!error) {
      error = new ApiError(kind, undefined, true);
      ApiError.guesses.set(kind, error);
    }
    return error;
  }

  /**
   * One shared instance per kind without detail. Failed lookups are common (and attackers make
   * them on purpose): a new Error each time would spend more on its stack trace than on the lookup.
   */
  static of(kind: ErrorKind): ApiError {
    let error = ApiError.shared.get(kind);
    if (!error) {
      error = new ApiError(kind);
      ApiError.shared.set(kind, error);
    }
    return error;
  }
}

/** A value, or the refusal that stands in its place. */
export type OrRefusal<T> = T | ApiError;

/** `next(value)` once `value` is here (see after), unless it is a refusal, which is passed on as it is. */
export function unlessRefused<T, R>(
  value: MaybePromise<OrRefusal<T>>,
  next: (value: T) => MaybePromise<OrRefusal<R>>,
): MaybePromise<OrRefusal<R>> {
  return after(value, (settled) => (settled instanceof ApiError ? settled : next(settled)));
}

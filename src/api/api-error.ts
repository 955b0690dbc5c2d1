import type { ErrorKind } from '../variants/error-kinds.js';

/** An error the API answers with: its kind picks the status and message; `detail` overrides the catalogue text. */
export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly detail?: string,
  ) {
    super(detail ?? kind);
    this.name = 'ApiError';
  }

  private static readonly shared = new Map<ErrorKind, ApiError>();

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

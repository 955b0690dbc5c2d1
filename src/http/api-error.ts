import type { ErrorKind } from './error-kinds.js';

/** An error the API answers with: its kind picks the status and message; `message` overrides the catalogue text. */
export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly detail?: string,
  ) {
    super(detail ?? kind);
    this.name = 'ApiError';
  }
}

import type { ErrorKind } from '../variants/error-kinds.js';

/**
 * What reading a body came to: the parsed body, an error of the catalogue (the connection then
 * closes: a client that sent a broken body may be sending anything next), or a client gone mid-body.
 */
export type BodyOutcome =
  | { readonly body: unknown; readonly error?: undefined; readonly aborted?: undefined }
  | { readonly error: ErrorKind; readonly body?: undefined; readonly aborted?: undefined }
  | { readonly aborted: true; readonly body?: undefined; readonly error?: undefined };

/**
 * The error catalogue: every kind of error the API answers with, and its HTTP status.
 * The message for each kind lives beside it in each variant's texts, one per language; the HTTP
 * layer reads both from here.
 */
export const errorStatus = {
  badParameter: 400,
  malformedRequest: 400,
  invalidRequest: 401,
  noItems: 404,
  itemNotFound: 404,
  invalidPurchaseCode: 404,
  notFound: 404,
  methodNotAllowed: 405,
  requestTimeout: 408,
  bodyTooLarge: 413,
  unsupportedContentType: 415,
  tooManyRequests: 429,
  serviceUnavailable: 503,
  internal: 500,
} as const;

export type ErrorKind = keyof typeof errorStatus;

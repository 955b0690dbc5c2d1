/**
 * The error catalogue: every kind of error the API answers with, its HTTP status, and its stable
 * English code, sent as `X-Error-Code` on every error answer (listed in docs/api.md) for clients
 * to branch on rather than on translated messages. The message for each kind lives in the
 * variant texts (src/variants), one per language.
 */
export const errorKinds = {
  badParameter: { status: 400, code: 'bad_parameter' },
  malformedRequest: { status: 400, code: 'malformed_request' },
  invalidRequest: { status: 401, code: 'invalid_api_key' },
  keyScope: { status: 403, code: 'key_scope' },
  noItems: { status: 404, code: 'no_items' },
  itemNotFound: { status: 404, code: 'item_not_found' },
  invalidPurchaseCode: { status: 404, code: 'invalid_purchase_code' },
  notFound: { status: 404, code: 'not_found' },
  activationNotFound: { status: 404, code: 'activation_not_found' },
  activationLimit: { status: 409, code: 'activation_limit' },
  methodNotAllowed: { status: 405, code: 'method_not_allowed' },
  requestTimeout: { status: 408, code: 'request_timeout' },
  bodyTooLarge: { status: 413, code: 'body_too_large' },
  unsupportedContentType: { status: 415, code: 'unsupported_content_type' },
  tooManyRequests: { status: 429, code: 'rate_limited' },
  serviceUnavailable: { status: 503, code: 'service_unavailable' },
  internal: { status: 500, code: 'internal' },
} as const;

export type ErrorKind = keyof typeof errorKinds;

/** Each kind's HTTP status, from the catalogue. */
export const errorStatus = Object.fromEntries(
  Object.entries(errorKinds).map(([kind, { status }]) => [kind, status]),
) as { readonly [K in ErrorKind]: (typeof errorKinds)[K]['status'] };

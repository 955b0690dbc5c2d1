import type { FastifyReply } from 'fastify';

/**
 * The admin API's errors: HTTP status and a stable code. The body is
 * `{"code": <code>, "message": <English sentence>}`; `X-Error-Code` carries the same code.
 */
export const adminErrors = {
  malformed_request: { status: 400, message: 'The request is malformed' },
  not_found: { status: 404, message: 'Not found' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  unauthorized: { status: 401, message: 'A valid admin token is required (Authorization: Bearer <ADMIN_TOKEN>)' },
  purchase_not_found: { status: 404, message: 'No purchase has this code' },
  account_not_found: { status: 404, message: 'No account has this username' },
  item_not_found: { status: 404, message: 'No item has this id' },
  key_managed_by_marketbob: {
    status: 409,
    message:
      "This account's key is MarketBob's: regenerate it in MarketBob, and the bridge takes the new key (and ends this one) within seconds",
  },
  api_key_not_found: { status: 404, message: 'The account has no API key with this id' },
  webhook_not_found: { status: 404, message: 'The account has no webhook endpoint with this id' },
  delivery_not_found: { status: 404, message: 'The endpoint has no delivery of this event' },
  invalid_webhook: { status: 422, message: 'The webhook request is not valid' },
  import_rejected: { status: 422, message: 'The import has bad lines; nothing was written' },
  body_too_large: { status: 413, message: 'The import is over the size limit; nothing was written' },
  import_failed: { status: 500, message: 'The import failed; nothing was written' },
  export_failed: { status: 500, message: 'The export failed' },
  service_unavailable: { status: 503, message: 'Service unavailable' },
  internal: { status: 500, message: 'Internal error' },
} as const;

export type AdminErrorCode = keyof typeof adminErrors;

/** Sends an admin error, with the catalogue's message unless `message` says more, and `extra` fields after. */
export function sendAdminError(
  reply: FastifyReply,
  code: AdminErrorCode,
  message?: string,
  extra?: Record<string, unknown>,
): FastifyReply {
  const entry = adminErrors[code];
  return sendAdminJson(reply.header('x-error-code', code), entry.status, {
    code,
    message: message ?? entry.message,
    ...extra,
  });
}

/** Every admin answer is JSON that no cache may keep (one holds a new API key). */
export function sendAdminJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(JSON.stringify(body));
}

import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorKind } from '../variants/error-kinds.js';
import { errorKinds } from '../variants/error-kinds.js';
import type { VariantResolver, VariantRuntime } from '../variants/variant-runtime.js';
import { newRequestId, requestIdOf } from './request-id.js';
import { isExemptFromRequestTimeout } from './request-timeout-exemption.js';
import { pathOf } from './url-path.js';

const REASONS: Partial<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout' };

/**
 * A request Node itself gave up on never reaches a route: one it cannot parse (400), or one whose
 * headers or body did not arrive in time (408). Both are answered in the contract's envelope on
 * the raw socket, which is then closed; a connection the client already dropped is just closed.
 * Neither is an error of the service's, so nothing is logged above debug.
 */
export function answerClientError(resolver: VariantResolver, error: NodeJS.ErrnoException, socket: Socket): void {
  // The answer in progress on this socket, when Node had already read the request's headers. One
  // whole and handed to the socket (a request before these bytes, just answered) is done with:
  // what is written now follows it.
  const attached = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  const response = attached?.writableEnded ? undefined : attached;
  if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  // Node has stopped timing this request (it does so once): a route that lifted its timeout goes on.
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && isExemptFromRequestTimeout(response?.req)) return;
  const kind: ErrorKind = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'requestTimeout' : 'malformedRequest';
  const { status, code } = errorKinds[kind];
  const request = response?.req;
  // No Fastify request exists yet: the id is the client's when it sent a sane one, else a new one.
  const requestId = request ? requestIdOf(request) : newRequestId();
  const variant = request
    ? resolver.forPath(pathOf(request.url ?? '/'), request.headers.host ?? '').variant
    : (resolver.variants[0] as VariantRuntime);
  const body = variant.errorBody(kind);
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nX-Request-Id: ${requestId}\r\n` +
      `X-Error-Code: ${code}\r\nConnection: close\r\n` +
      `Content-Length: ${body.length}\r\n\r\n${body}`,
  );
}

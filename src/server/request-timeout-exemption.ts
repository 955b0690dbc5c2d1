import type { IncomingMessage } from 'node:http';

const exempt = new WeakSet<IncomingMessage>();

/**
 * Lifts the server's request timeout (config `server.requestTimeoutSeconds`, which Node applies to
 * a whole request body and cannot set per route) for one request: an authenticated upload that
 * may rightly take longer than any API request, such as an admin import of a gigabyte.
 */
export function exemptFromRequestTimeout(request: IncomingMessage): void {
  exempt.add(request);
}

/** True for a request whose timeout was lifted (see `answerClientError`). */
export function isExemptFromRequestTimeout(request: IncomingMessage | undefined): boolean {
  return request !== undefined && exempt.has(request);
}

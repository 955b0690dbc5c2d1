import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';

/** A request id a client may choose: short, and nothing a log line or a header could trip on. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id (Fastify's `genReqId`): the client's `X-Request-Id` when it is sane (1 to 128
 * characters of `A-Za-z0-9._:-`), else a new UUID. A proxy's or client's id then follows the
 * request through our log lines.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * `X-Request-Id` on every answer, set as the request arrives so that answers made in any later
 * hook carry it too. Registered first, at the root (fastify-plugin).
 */
async function requestId(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}

export default fastifyPlugin(requestId, { name: 'request-id', fastify: '5.x' });

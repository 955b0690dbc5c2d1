import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';

/** A request id a client may choose: short, and nothing a log line or a header could trip on. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Ids of our own are UUID-shaped (RFC 9562 version 8: the layout is ours): 80 random bits drawn
 * once per process, so that no two processes or instances share them, then a 48-bit counter.
 * Unique without a random source per request, which on these machines cost as much as a route.
 */
const processBits = randomBytes(10).toString('hex');
const PREFIX = `${processBits.slice(0, 8)}-${processBits.slice(8, 12)}-8${processBits.slice(12, 15)}-a${processBits.slice(15, 18)}-${processBits.slice(18, 20)}`;
let issued = 0;

/** The count's last three hex digits, written once: a radix conversion and a pad per id cost more. */
const LOW_DIGITS = Array.from({ length: 4096 }, (_, low) => low.toString(16).padStart(3, '0'));
/** The prefix with the count's seven high hex digits, made again each 4,096 ids. */
let high = -1;
let highText = '';

/** A new id: the process's prefix and the next count, in hex (10 digits: a trillion ids). */
export function newRequestId(): string {
  issued += 1;
  const count = Math.floor(issued / 4096);
  if (count !== high) {
    high = count;
    highText = PREFIX + count.toString(16).padStart(7, '0');
  }
  return highText + (LOW_DIGITS[issued % 4096] as string);
}

/**
 * The request's id: the client's `X-Request-Id` when it is sane (1 to 128 characters of
 * `A-Za-z0-9._:-`), else a new one. A proxy's or client's id then follows the request through our
 * log lines. The API door and Fastify (`genReqId`) both take it from here.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : newRequestId();
}

/**
 * `X-Request-Id` on every Fastify answer, set as the request arrives so that answers made in any
 * later hook carry it too. Registered first, at the root (fastify-plugin).
 */
async function requestId(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}

export default fastifyPlugin(requestId, { name: 'request-id', fastify: '5.x' });

import { readFileSync } from 'node:fs';
import { parse as parseQuery } from 'fast-querystring';
import Fastify from 'fastify';
import { readMultipartFields } from './contract-floor-body.js';

/**
 * The framework's floor: Fastify with the same routes, parsing JSON, urlencoded and multipart
 * bodies (Fastify's own JSON parser; fast-querystring and @fastify/busboy as content-type parsers,
 * as the real server's), but answering each case with the precomputed response bytes and doing
 * nothing else. The gap between
 * this and the bare baseline is Fastify's own cost; the gap between the real server and this is ours.
 */
interface Canned {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const file = process.argv[2];
if (!file) throw new Error('usage: fastify-floor-server <canned-responses.json>');
const canned = new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Canned>));

const app = Fastify({ logger: false });
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
  done(null, parseQuery(body as string)),
);
app.addContentTypeParser('multipart/form-data', (request, payload, done) =>
  readMultipartFields(request.headers['content-type'] as string, payload, (fields) => done(null, fields)),
);
const answer = (caseName: unknown, reply: import('fastify').FastifyReply) => {
  const response = canned.get(String(caseName));
  if (!response) return reply.code(404).send();
  return reply.code(response.status).headers(response.headers).send(response.body);
};
for (const path of ['/api/account/details', '/api/items/all', '/api/items/item']) {
  app.get(path, (request, reply) => answer(request.headers['x-bench-case'], reply));
}
app.post('/api/purchases/validation', (request, reply) => answer(request.headers['x-bench-case'], reply));

const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`fastify floor listening on ${new URL(address).port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { pathOf } from './routing-errors.js';

/**
 * One access line per request at debug level: method, path without its query string (which may
 * hold a key or a purchase code), status and time. No hook at all at higher levels: it would run
 * on every request for nothing.
 */
async function accessLog(app: FastifyInstance): Promise<void> {
  if (app.log.level !== 'debug' && app.log.level !== 'trace') return;
  app.addHook('onResponse', (request, reply, done) => {
    request.log.debug(
      {
        reqId: request.id,
        method: request.method,
        path: pathOf(request.url),
        status: reply.statusCode,
        ms: reply.elapsedTime,
      },
      'request',
    );
    done();
  });
}

export default fastifyPlugin(accessLog, { name: 'access-log', fastify: '5.x' });

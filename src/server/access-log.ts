import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';

/**
 * One access line per request at debug level: method, route, status and time. The route is the
 * pattern the request matched (`/admin/v1/purchases/:code/downloaded`), never the path asked for:
 * a path may hold a purchase code or a username, and a query string a key. A request no route
 * matched has no route (`null`): its path is whatever the client wrote. No hook at all at higher
 * levels: it would run on every request for nothing. (The API's door writes its own line, the same
 * shape, for the API's requests.)
 */
async function accessLog(app: FastifyInstance): Promise<void> {
  if (app.log.level !== 'debug' && app.log.level !== 'trace') return;
  app.addHook('onResponse', (request, reply, done) => {
    request.log.debug(
      {
        reqId: request.id,
        method: request.method,
        route: request.is404 ? null : (request.routeOptions.url ?? null),
        status: reply.statusCode,
        ms: reply.elapsedTime,
      },
      'request',
    );
    done();
  });
}

export default fastifyPlugin(accessLog, { name: 'access-log', fastify: '5.x' });

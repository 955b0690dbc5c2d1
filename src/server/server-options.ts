import { createServer, type Server } from 'node:http';
import { type FastifyBaseLogger, type FastifyHttpOptions, type FastifyReply, LogController } from 'fastify';
import { sendError } from '../api/reply.js';
import type { VariantResolver } from '../variants/variant-runtime.js';
import type { ApiDoor } from './api-door.js';
import { BODY_LIMIT } from './body-limit.js';
import { answerClientError } from './client-errors.js';
import { variantOf } from './error-handling.js';
import { requestIdOf } from './request-id.js';

/**
 * The Fastify options the app is built with: only what can be given at construction (logging,
 * routing, the raw-socket and routing error handlers). Timeouts and limits are set on the server
 * by `server-limits`. The server hands every request to the API's door first (see api-door.ts):
 * what is not under a variant's `/api` is Fastify's.
 */
export function createServerOptions(
  logger: FastifyBaseLogger,
  resolver: VariantResolver,
  trustProxy: readonly string[],
  door: ApiDoor,
): FastifyHttpOptions<Server> {
  return {
    serverFactory: (fastify) => {
      const handle = (request: Parameters<typeof fastify>[0], response: Parameters<typeof fastify>[1]) => {
        if (!door.take(request, response)) fastify(request, response);
      };
      // Node would answer an HTTP/1.1 request without Host itself, with an empty 400: the door and
      // the error-handling plugin answer it in the contract's envelope instead.
      const server = createServer({ requireHostHeader: false }, handle);
      // Node answers an Expect it does not know with an empty 417 unless told otherwise; RFC 9110
      // 10.1.1 lets a server ignore it, and so the request is answered as if it had none.
      server.on('checkExpectation', handle);
      // Bytes that are no request, read behind a request whose answer is held (answer-writes.ts),
      // close the connection once answered: the answers held are written first.
      server.prependListener('clientError', door.writes.flush);
      return server;
    },
    loggerInstance: logger,
    // `request.ip` is the client that the listed proxies (config trustProxy) saw, else the peer.
    trustProxy: trustProxy.length > 0 ? [...trustProxy] : false,
    // Access lines are the access-log plugin's, written without query strings.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (pino builds one with its bindings every time): the few lines
    // written per request name their request id.
    childLoggerFactory: (rootLogger) => rootLogger,
    bodyLimit: BODY_LIMIT,
    // The client's X-Request-Id when sane, else a new one (see request-id.ts).
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Long enough for any purchase code or username the admin API is given (Fastify's default is 100).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    // Requests on connections still open while closing are answered normally.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    frameworkErrors: (_error, request, reply) => {
      // Raised before any hook runs: the request id is set here.
      // Typed for the route's generics, which a bad URL has none of.
      sendError(reply.header('x-request-id', request.id) as FastifyReply, variantOf(resolver, request), 'notFound');
    },
    clientErrorHandler: (error, socket) => answerClientError(resolver, error, socket),
  };
}

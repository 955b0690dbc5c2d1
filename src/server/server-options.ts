import { createServer, type Server } from 'node:http';
import { type FastifyBaseLogger, type FastifyHttpOptions, type FastifyReply, LogController } from 'fastify';
import { sendError } from '../api/reply.js';
import type { VariantResolver } from '../variants/variant-runtime.js';
import { BODY_LIMIT } from './body-limit.js';
import type { FastLane } from './fast-lane.js';
import { requestIdOf } from './request-id.js';
import { answerClientError, variantOf } from './routing-errors.js';

/**
 * The Fastify options the app is built with: only what can be given at construction (logging,
 * routing, the raw-socket and routing error handlers). Timeouts and limits are the admission
 * plugin's, which sets them on the server it is registered on. The server offers each request to
 * the fast lane first (see fast-lane.ts); what the lane does not take is Fastify's.
 */
export function createServerOptions(
  logger: FastifyBaseLogger,
  resolver: VariantResolver,
  trustProxy: readonly string[],
  lane: FastLane,
): FastifyHttpOptions<Server> {
  return {
    // Node would answer an HTTP/1.1 request without Host itself, with an empty 400: the
    // error-handling plugin answers it in the contract's envelope instead.
    serverFactory: (fastify) =>
      createServer({ requireHostHeader: false }, (request, response) => {
        if (!lane.take(request, response)) fastify(request, response);
      }),
    loggerInstance: logger,
    // `request.ip` is the client that the listed proxies (config trustProxy) saw, else the peer.
    trustProxy: trustProxy.length > 0 ? [...trustProxy] : false,
    // Access lines are the access-log plugin's, written without query strings.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (pino builds one with its bindings every time, a measurable
    // share of a cheap request): the few lines written per request name their request id.
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

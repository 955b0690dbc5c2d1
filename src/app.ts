import formbody from '@fastify/formbody';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Config } from './config.js';
import { ApiError } from './http/api-error.js';
import { BODY_LIMIT } from './http/body-limit.js';
import type { Endpoint, EndpointContext } from './http/endpoint.js';
import type { ErrorKind } from './http/error-kinds.js';
import { createFailureLimiter } from './http/failure-limiter.js';
import { parseMultipart } from './http/multipart-body.js';
import { sendError, sendJson } from './http/reply.js';
import { ResourceCache } from './http/resource-cache.js';
import { endpoints } from './http/routes/index.js';
import { createVariantResolver, type VariantRuntime } from './http/variant-runtime.js';
import { digestApiKey } from './keys/api-keys.js';
import type { KeyMaterial } from './keys/server-secret.js';
import { type Store, StoreUnavailableError } from './store/store.js';

export interface AppOptions {
  readonly config: Config;
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly logger: FastifyBaseLogger;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The variant this request is answered in, set before anything else runs. */
    variant: VariantRuntime | null;
    /** Set when the route handler starts: errors before it come from reading the body. */
    handlerStarted: boolean;
  }
}

/** Failures that count against a client's budget: guessing keys or purchase codes. */
const GUESSING_FAILURES: ReadonlySet<ErrorKind> = new Set(['invalidRequest', 'invalidPurchaseCode']);

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** JSON (Fastify's own), form and multipart bodies, nothing else (SPEC 2.1). */
async function registerBodyParsers(scope: FastifyInstance): Promise<void> {
  // Fastify's own text/plain parser goes: another content type is a 415.
  scope.removeContentTypeParser('text/plain');
  await scope.register(formbody, { bodyLimit: BODY_LIMIT });
  scope.addContentTypeParser('multipart/form-data', parseMultipart);
}

/** Builds the HTTP app over an open store. `main.ts` runs it; tests build it the same way. */
export async function buildApp({ config, store, keys, logger }: AppOptions): Promise<FastifyInstance> {
  const resolver = createVariantResolver(config.variants);
  const limiter = createFailureLimiter(config.failedAttempts.max, config.failedAttempts.windowSeconds);
  const cache = new ResourceCache(store, (apiKey) => digestApiKey(keys, apiKey));
  const context: EndpointContext = { store, cache, support: config.support };
  const endpointByPath = new Map(endpoints.map((endpoint) => [endpoint.path, endpoint]));
  const variantOf = (request: FastifyRequest) =>
    request.variant ?? resolver.forPath(pathOf(request.url), request.host).variant;

  const app = Fastify({
    loggerInstance: logger,
    // Access lines are written at debug level by the onResponse hook below, without query strings.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (pino builds one with its bindings every time, a measurable
    // share of a cheap request): the few lines written per request name their request id.
    childLoggerFactory: (rootLogger) => rootLogger,
    bodyLimit: BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true },
    // Requests on connections still open while closing are answered normally.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    frameworkErrors: (_error, request, reply) => {
      sendError(reply, variantOf(request), 'notFound');
    },
    // A request Node cannot parse never reaches a route: answer it in the contract's envelope too.
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      if (error.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      const body = (resolver.variants[0] as VariantRuntime).errorBody('malformedRequest');
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n` +
          `Connection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
    },
  });
  app.decorateRequest('variant', null);
  app.decorateRequest('handlerStarted', false);

  // Route first (404, 405), then the body's size, before anything is read (SPEC 2.2.1).
  // Callback hooks, not async ones: they run on every request, and a promise each time shows.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404) {
      answerUnrouted(request, reply);
      return;
    }
    done();
  });

  /**
   * A routed request's own hook: its variant, its client's failure budget, its body's declared size.
   * Each route has its own (over its prefix), as `request.routeOptions` builds an object per call.
   */
  function admit(prefix: string, request: FastifyRequest, reply: FastifyReply, done: () => void) {
    const variant = resolver.forPrefix(prefix, request.host);
    if (!variant) {
      sendError(reply, variantOf(request), 'notFound');
      return;
    }
    request.variant = variant;
    const retryAfter = limiter.retryAfter(request.ip);
    if (retryAfter > 0) {
      sendError(reply.header('retry-after', String(retryAfter)), variant, 'tooManyRequests');
      return;
    }
    if (request.method === 'POST' && Number(request.headers['content-length'] ?? 0) > BODY_LIMIT) {
      sendError(reply, variant, 'bodyTooLarge');
      return;
    }
    done();
  }

  function answerUnrouted(request: FastifyRequest, reply: FastifyReply) {
    const { variant, rest } = resolver.forPath(pathOf(request.url), request.host);
    request.variant = variant;
    const endpoint = endpointByPath.get(withoutTrailingSlash(rest));
    if (!endpoint || !resolver.forPrefix(variant.config.prefix, request.host)) {
      return sendError(reply, variant, 'notFound');
    }
    return sendError(
      reply.header('allow', endpoint.method === 'GET' ? 'GET, HEAD' : 'POST'),
      variant,
      'methodNotAllowed',
    );
  }

  if (logger.level === 'debug' || logger.level === 'trace') {
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

  app.setNotFoundHandler((request, reply) => answerUnrouted(request, reply));

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const variant = variantOf(request);
    if (error instanceof ApiError) {
      // The rest of an oversized body is left unread: the connection cannot carry another request.
      if (error.kind === 'bodyTooLarge') reply.header('connection', 'close');
      return sendError(reply, variant, error.kind, error.detail);
    }
    if (error instanceof StoreUnavailableError) {
      request.log.error({ reqId: request.id, err: error.cause }, 'store unavailable');
      return sendError(reply, variant, 'serviceUnavailable');
    }
    if (!request.handlerStarted) {
      // Raised while reading the body: its size, its type, or its syntax.
      if (error.statusCode === 413) return sendError(reply, variant, 'bodyTooLarge');
      if (error.statusCode === 415) return sendError(reply, variant, 'unsupportedContentType');
      if (error.statusCode !== undefined && error.statusCode < 500)
        return sendError(reply, variant, 'malformedRequest');
    }
    request.log.error({ reqId: request.id, err: error }, 'unexpected error');
    return sendError(reply, variant, 'internal');
  });

  const register = (scope: FastifyInstance, prefix: string, endpoint: Endpoint) =>
    scope.route({
      method: endpoint.method,
      url: `${prefix}${endpoint.path}`,
      onRequest: (request, reply, done) => admit(prefix, request, reply, done),
      handler: async (request, reply) => {
        request.handlerStarted = true;
        const variant = request.variant as VariantRuntime;
        cache.refresh();
        try {
          return sendJson(reply, 200, await endpoint.handle(request, variant, context));
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          if (GUESSING_FAILURES.has(error.kind)) limiter.recordFailure(request.ip);
          return sendError(reply, variant, error.kind, error.detail);
        }
      },
    });
  const withBody = endpoints.filter((endpoint) => endpoint.method === 'POST');
  for (const prefix of resolver.prefixes) {
    for (const endpoint of endpoints) if (endpoint.method === 'GET') register(app, prefix, endpoint);
  }
  // Body parsers live in a scope of their own with the POST routes: GET routes ignore bodies
  // (SPEC 2.1) and so skip the parsers' per-request hooks.
  await app.register(async (scope) => {
    await registerBodyParsers(scope);
    for (const prefix of resolver.prefixes) for (const endpoint of withBody) register(scope, prefix, endpoint);
  });

  return app;
}

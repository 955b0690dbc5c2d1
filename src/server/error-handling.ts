import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { ApiError } from '../api/api-error.js';
import { type JsonReply, sendError } from '../api/reply.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { StoreUnavailableError } from '../store/store.js';
import type { VariantResolver, VariantRuntime } from '../variants/variant-runtime.js';
import { answerUnrouted, variantOf } from './routing-errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The variant this request is answered in, set before anything else runs. */
    variant: VariantRuntime | null;
    /** Set when the route handler starts: errors before it come from reading the body. */
    handlerStarted: boolean;
  }
}

export interface ErrorHandlingOptions {
  readonly resolver: VariantResolver;
  /** Where store failures are counted. */
  readonly metrics: ServiceMetrics;
}

/** Codes Node and Fastify give a body the client stopped sending: not an error of the service's. */
const ABORTED_BODY = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
]);

/**
 * Routing errors (404, 405) and every error a route or a body parser raises, answered in the
 * contract's envelope in the request's variant. 5xx bodies say nothing internal; the log line says
 * what happened, by request id. At the root (fastify-plugin), so that it covers every route.
 */
async function errorHandling(app: FastifyInstance, { resolver, metrics }: ErrorHandlingOptions): Promise<void> {
  app.decorateRequest('variant', null);
  app.decorateRequest('handlerStarted', false);
  // Node answers an Expect it does not know with an empty 417 unless told otherwise; RFC 9110
  // 10.1.1 lets a server ignore it, and so the request is answered as if it had none.
  app.server.on('checkExpectation', app.routing);

  // Route first (404, 405), before anything is read (SPEC 2.2.1). A callback hook, not an async
  // one: it runs on every request, and a promise each time shows.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      // RFC 9112 3.2: a 400 for an HTTP/1.1 request that names no host (see server-options.ts).
      sendError(reply, variantOf(resolver, request), 'malformedRequest');
      return;
    }
    if (request.is404) {
      answerUnrouted(resolver, request, reply);
      return;
    }
    done();
  });
  app.setNotFoundHandler((request, reply) => answerUnrouted(resolver, request, reply));

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const variant = variantOf(resolver, request);
    if (error instanceof ApiError) {
      // The rest of an oversized body is left unread: the connection cannot carry another request.
      if (error.kind === 'bodyTooLarge') reply.header('connection', 'close');
      return sendError(reply, variant, error.kind, error.detail);
    }
    if (!request.handlerStarted && !(error instanceof StoreUnavailableError)) {
      if (error.code !== undefined && ABORTED_BODY.has(error.code) && request.raw.readableAborted) {
        // The client went away mid-body: nobody is left to answer.
        request.log.debug({ reqId: request.id, code: error.code }, 'request body aborted');
        return reply.header('connection', 'close').code(400).send();
      }
      // Raised while reading the body: its size, its type, or its syntax.
      if (error.statusCode === 413) return sendError(reply.header('connection', 'close'), variant, 'bodyTooLarge');
      if (error.statusCode === 415) return sendError(reply, variant, 'unsupportedContentType');
      if (error.statusCode !== undefined && error.statusCode < 500)
        return sendError(reply, variant, 'malformedRequest');
    }
    return answerServerError(error, { id: request.id, log: request.log, metrics, reply, variant });
  });
}

/** Where a failure of the service's own is answered, logged and counted. */
export interface ServerErrorScene {
  /** The request's id, for the log line. */
  readonly id: string;
  readonly log: FastifyBaseLogger;
  readonly metrics: ServiceMetrics;
  readonly reply: JsonReply;
  readonly variant: VariantRuntime;
}

/**
 * A failure that is not the client's: 503 when the store cannot be reached, else 500. The body
 * says nothing internal; the log line says what happened, by request id. Shared by the error
 * handler and the fast lane.
 */
export function answerServerError(error: unknown, { id, log, metrics, reply, variant }: ServerErrorScene): JsonReply {
  if (error instanceof StoreUnavailableError) {
    metrics.storeError('unavailable');
    log.error({ reqId: id, err: error.cause }, 'store unavailable');
    return sendError(reply, variant, 'serviceUnavailable');
  }
  metrics.storeError('other');
  log.error({ reqId: id, err: error }, 'unexpected error');
  return sendError(reply, variant, 'internal');
}

export default fastifyPlugin(errorHandling, { name: 'error-handling', fastify: '5.x' });

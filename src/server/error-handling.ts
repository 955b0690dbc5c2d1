import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { sendError } from '../api/reply.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { VariantResolver, VariantRuntime } from '../variants/variant-runtime.js';
import { classifyError, reportFailure } from './error-classifier.js';
import { pathOf } from './url-path.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The variant this request is answered in, once a surface has picked it. */
    variant: VariantRuntime | null;
  }
}

export interface ErrorHandlingOptions {
  readonly resolver: VariantResolver;
  /** Where store failures are counted. */
  readonly metrics: ServiceMetrics;
}

/** The variant a request is answered in: the one its surface set, else the one its path and host fall under. */
export function variantOf(resolver: VariantResolver, request: FastifyRequest): VariantRuntime {
  return request.variant ?? resolver.forPath(pathOf(request.url), request.host).variant;
}

/**
 * Fastify's share of the errors (the API's are its door's): a path no route holds is a 404, and an
 * error a surface does not answer itself (health, docs, static files) is answered in the
 * contract's envelope in the request's variant. 5xx bodies say nothing internal; the log line says
 * what happened, by request id. At the root (fastify-plugin), so that it covers every route; the
 * workspace and the admin API set their own handlers over the same classifier.
 */
async function errorHandling(app: FastifyInstance, { resolver, metrics }: ErrorHandlingOptions): Promise<void> {
  app.decorateRequest('variant', null);

  // A callback hook, not an async one: it runs on every request, and a promise each time shows.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      // RFC 9112 3.2: a 400 for an HTTP/1.1 request that names no host (see server-options.ts).
      request.variant = variantOf(resolver, request);
      sendError(reply, request.variant, 'malformedRequest');
      return;
    }
    // No route: a 404 before anything is read (SPEC 2.2.1), its body included.
    if (request.is404) {
      request.variant = variantOf(resolver, request);
      sendError(reply, request.variant, 'notFound');
      return;
    }
    done();
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, variantOf(resolver, request), 'notFound'));

  app.setErrorHandler((error, request, reply) => {
    const variant = variantOf(resolver, request);
    const failure = classifyError(error);
    reportFailure(failure, { surface: 'http', reqId: request.id, log: request.log, metrics });
    switch (failure.kind) {
      case 'aborted':
        return reply.header('connection', 'close').code(400).send();
      case 'bodyTooLarge':
        return sendError(reply.header('connection', 'close'), variant, 'bodyTooLarge');
      default:
        return sendError(reply, variant, failure.kind);
    }
  });
}

export default fastifyPlugin(errorHandling, { name: 'error-handling', fastify: '5.x' });

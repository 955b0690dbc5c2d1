import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceMetrics } from './service-metrics.js';

export interface RequestMetricsOptions {
  readonly metrics: ServiceMetrics;
}

/** The variant label of a request: the one its surface picked, else `none`. */
const variantLabel = (request: FastifyRequest) => request.variant?.config.lang ?? 'none';

/**
 * Counts every request Fastify answers (the API door counts its own) by route, variant and
 * status, and times it. Registered before the routes: each route gets its own onResponse hook
 * with its recorders kept by variant. Requests no route took count under endpoint `unrouted`.
 * Labels are patterns, never values.
 */
export const requestMetricsPlugin = fp(
  async (app: FastifyInstance, { metrics }: RequestMetricsOptions) => {
    app.addHook('onRoute', (route) => {
      const recorderFor = metrics.routeRecorders(route.url);
      const record: onResponseHookHandler = (request, reply, done) => {
        recorderFor(variantLabel(request)).observe(reply.statusCode, reply.elapsedTime / 1000);
        done();
      };
      const existing = route.onResponse;
      route.onResponse =
        existing === undefined ? [record] : [...(Array.isArray(existing) ? existing : [existing]), record];
    });

    const unrouted = metrics.routeRecorders('unrouted');
    app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
      if (request.is404) unrouted(variantLabel(request)).observe(reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'request-metrics' },
);

import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { RouteMetrics, ServiceMetrics } from './service-metrics.js';

export interface RequestMetricsOptions {
  readonly metrics: ServiceMetrics;
}

/**
 * Counts every request Fastify answers (the API door counts its own) by route, variant and status, and times it. Registered
 * before the routes: each route gets its own onResponse hook with its labels resolved once (its
 * variant is known after admission, so one recorder per variant is kept per route). Requests no
 * route took (404, 405) count under endpoint `unrouted`. Labels are patterns, never values.
 */
export const requestMetricsPlugin = fp(
  async (app: FastifyInstance, { metrics }: RequestMetricsOptions) => {
    app.addHook('onRoute', (route) => {
      const endpoint = route.url;
      const byVariant = new Map<string, RouteMetrics>();
      const record: onResponseHookHandler = (request, reply, done) => {
        const variant = request.variant?.config.lang ?? 'none';
        let recorder = byVariant.get(variant);
        if (recorder === undefined) {
          recorder = metrics.route(endpoint, variant);
          byVariant.set(variant, recorder);
        }
        recorder.observe(reply.statusCode, reply.elapsedTime / 1000);
        done();
      };
      const existing = route.onResponse;
      route.onResponse =
        existing === undefined ? [record] : [...(Array.isArray(existing) ? existing : [existing]), record];
    });

    const unrouted = new Map<string, RouteMetrics>();
    app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
      if (request.is404) {
        const variant = request.variant?.config.lang ?? 'none';
        let recorder = unrouted.get(variant);
        if (recorder === undefined) {
          recorder = metrics.route('unrouted', variant);
          unrouted.set(variant, recorder);
        }
        recorder.observe(reply.statusCode, reply.elapsedTime / 1000);
      }
      done();
    });
  },
  { name: 'request-metrics' },
);

import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { PartSchemas, RouteOf } from '../web/request-parts.js';
import type { AdminPluginOptions } from './admin-options.js';

/** A route of the admin API, ready to be added to the plugin's scope. */
export type AdminRoute = (scope: FastifyInstance, deps: AdminPluginOptions) => void | Promise<void>;

/** One admin route: its method, path (under /admin/v1), the TypeBox schemas of its parts, its handler. */
export interface AdminRouteSpec<S extends PartSchemas> {
  readonly method: HTTPMethods;
  readonly url: string;
  readonly schema?: S;
  readonly bodyLimit?: number;
  readonly handler: (request: FastifyRequest<RouteOf<S>>, reply: FastifyReply, deps: AdminPluginOptions) => unknown;
}

/**
 * An admin route as one object: Fastify checks and decodes its parts with their schemas (the
 * plugin's validator, as the workspace's) before the handler runs.
 */
export function adminRoute<S extends PartSchemas>(route: AdminRouteSpec<S>): AdminRoute {
  return (scope, deps) => {
    scope.route<RouteOf<S>>({
      method: route.method,
      url: route.url,
      ...(route.schema === undefined ? {} : { schema: route.schema }),
      ...(route.bodyLimit === undefined ? {} : { bodyLimit: route.bodyLimit }),
      handler: (request, reply) => route.handler(request, reply, deps),
    });
  };
}

import type { Endpoint } from './endpoint.js';

/** An endpoint under one variant base: what the door answers a path with. */
export interface ApiRoute {
  readonly endpoint: Endpoint;
  /** The variant base it is registered under ('' or '/pt'). */
  readonly prefix: string;
  /** `{prefix}{endpoint.path}`: the access log's and the docs' name for it, never a value. */
  readonly pattern: string;
  /** The `Allow` header of a 405 on this path. */
  readonly allow: string;
}

/**
 * The API's one routing table: every endpoint under every variant base, found by path (a
 * trailing slash or not). Read once, by the door, which owns everything under `{base}/api`.
 */
export interface RouteTable {
  /** The route at this path (its query string already cut off), whatever the method. */
  find(path: string): ApiRoute | undefined;
  /** Whether a path falls under one of the bases' `/api`: the door's, answered 404 when no route holds it. */
  isApiPath(path: string): boolean;
  readonly routes: readonly ApiRoute[];
}

/** `endpointsUnder` gives the endpoints registered under each base (see endpointsUnder in marketbob-endpoints.ts). */
export function createRouteTable(
  endpointsUnder: (prefix: string) => readonly Endpoint[],
  prefixes: readonly string[],
): RouteTable {
  const byPath = new Map<string, ApiRoute>();
  const routes: ApiRoute[] = [];
  for (const prefix of prefixes) {
    for (const endpoint of endpointsUnder(prefix)) {
      const pattern = `${prefix}${endpoint.path}`;
      const route: ApiRoute = { endpoint, prefix, pattern, allow: endpoint.method === 'GET' ? 'GET, HEAD' : 'POST' };
      routes.push(route);
      byPath.set(pattern, route);
      byPath.set(`${pattern}/`, route);
    }
  }
  const roots = prefixes.map((prefix) => `${prefix}/api`);
  return {
    routes,
    find: (path) => byPath.get(path),
    isApiPath(path) {
      for (const root of roots) {
        if (path.startsWith(root) && (path.length === root.length || path.charCodeAt(root.length) === 0x2f))
          return true;
      }
      return false;
    },
  };
}

import type { Server } from 'node:http';
import { type Static, Type } from '@sinclair/typebox';

const Seconds = (description: string, maximum: number) =>
  Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum, description }));

/** The server's timeouts and connection limits in the config file: what a slow or greedy client may hold. */
export const ServerSchema = Type.Object(
  {
    requestTimeoutSeconds: Seconds('Time for a whole request (headers and body) to arrive', 3600),
    headersTimeoutSeconds: Seconds("Time for a request's headers to arrive; at most requestTimeoutSeconds", 3600),
    keepAliveTimeoutSeconds: Seconds('How long an idle keep-alive connection is kept', 3600),
    maxRequestsPerSocket: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Requests one connection may carry before it is closed; 0: no limit' }),
    ),
    maxConnections: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Open connections per process; more are refused at once' }),
    ),
  },
  { additionalProperties: false },
);

export type ServerFile = Static<typeof ServerSchema>;

/** The server's timeouts (in ms) and connection limits, every one set. */
export interface ServerLimits {
  readonly requestTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxRequestsPerSocket: number;
  readonly maxConnections: number;
}

/**
 * The server's timeouts and connection limits: a client that trickles its headers or body, or
 * holds idle sockets, cannot hold the process.
 */
export function applyServerLimits(http: Server, server: ServerLimits): void {
  http.requestTimeout = server.requestTimeoutMs;
  http.headersTimeout = server.headersTimeoutMs;
  http.keepAliveTimeout = server.keepAliveTimeoutMs;
  http.maxRequestsPerSocket = server.maxRequestsPerSocket;
  http.maxConnections = server.maxConnections;
  // Node checks the two timeouts above only this often (30 s by default): a timeout of 10 s would
  // otherwise hold a socket for up to 40 s.
  (http as typeof http & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    1000,
    server.headersTimeoutMs,
  );
}

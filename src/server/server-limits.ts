import type { Server } from 'node:http';
import type { ServerLimits } from '../config.js';

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

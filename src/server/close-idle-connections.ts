import type { FastifyInstance } from 'fastify';

/** How often, while the server closes, keep-alive connections gone idle are closed. */
const SWEEP_MS = 100;

/**
 * Closing the server closes the keep-alive connections idle at that moment; a connection whose
 * request is still in flight stays, is answered, and then goes idle too. Node leaves such a
 * connection open until its keep-alive timeout (config `server.keepAliveTimeoutSeconds`), and the
 * close waits for it: so, until the server has closed, idle connections are closed as they appear.
 */
export function closeIdleConnectionsWhileClosing(app: FastifyInstance): void {
  app.addHook('preClose', async () => {
    // Never listening, or closed already: no connection to sweep, and no close event to come.
    if (!app.server.listening) return;
    const sweep = setInterval(() => app.server.closeIdleConnections(), SWEEP_MS);
    app.server.once('close', () => clearInterval(sweep));
  });
}

import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { demoBanner } from './demo/demo-banner.js';
import { loadDemoData } from './demo/load-demo.js';
import { loadKeyMaterial } from './keys/key-material.js';
import { createLogger } from './logging.js';
import { openStore } from './store/open-store.js';

/** How long in-flight requests may take to finish after SIGTERM or SIGINT before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 9_000;

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config.logLevel);
  const store = await openStore(config.store);
  const keys = loadKeyMaterial(config);
  // Demo data only ever goes into the default store, and only while it is empty.
  const demoKey = config.storeIsDefault && (await store.isEmpty()) ? await loadDemoData(store, keys) : undefined;
  const app = await buildApp({ config, store, keys, logger });

  let closing = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    setTimeout(() => {
      logger.error('requests still in flight after the grace period; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    // A keep-alive connection whose request finishes during the close goes idle and would hold the
    // close open: close such connections as soon as they are idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    await app.close();
    clearInterval(sweep);
    await store.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);

  await app.listen({ host: config.host, port: config.port });
  if (demoKey !== undefined) {
    process.stdout.write(demoBanner(config, (app.server.address() as AddressInfo).port, demoKey));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`marketplace-api failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

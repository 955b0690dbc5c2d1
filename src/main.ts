import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { addressBanner, demoBanner, nextStepsBanner, type StoreFinding } from './demo/demo-banner.js';
import { DEMO_SELLER } from './demo/demo-data.js';
import { type DemoCredentials, loadDemoData } from './demo/load-demo.js';
import { answerSourceHealth, askPrimaryForSourceHealth } from './health/cluster-source-health.js';
import { setSourceProbe } from './health/source-probe.js';
import { loadKeyMaterial } from './keys/key-material.js';
import { answerCountersForWorkers } from './limits/cluster-counters.js';
import { createLogger, flushLogger } from './logging.js';
import { aggregateWorkerMetrics, shareWorkerMetrics, startMetricsServer } from './metrics/cluster-metrics.js';
import { createServiceMetrics } from './metrics/service-metrics.js';
import { registerSourceMetrics } from './metrics/source-metrics.js';
import { checkSecretOpensStore } from './operations/account-keys.js';
import { holdTickObject } from './server/tick-objects.js';
import { listenProblem, StartError, storeProblem } from './start-errors.js';
import { startFollowerThread } from './start-follower-thread.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';
import { packageVersion } from './version.js';

/** How long in-flight requests may take to finish after SIGTERM or SIGINT before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 9_000;
/** How long the primary waits for its workers after forwarding the signal: their grace, and a little more. */
const WORKERS_GRACE_MS = SHUTDOWN_GRACE_MS + 500;
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

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

/** Opens (and migrates) the configured store; a failure to reach it says which setting to check. */
async function openConfiguredStore(config: Config): Promise<Store> {
  try {
    return await openStore(config.store, { createDirectory: config.storeIsDefault });
  } catch (error) {
    const problem = storeProblem(error, config.store);
    throw problem === undefined ? error : new StartError(problem, { cause: error });
  }
}

/** Runs a listen; a port in use (or an address not of this machine) says which variable to change. */
async function guardedListen<T>(
  config: Config,
  variable: 'PORT' | 'METRICS_PORT',
  listen: () => Promise<T>,
): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const problem = listenProblem(error, config, variable);
    throw problem === undefined ? error : new StartError(problem, { cause: error });
  }
}

/** Demo data only ever goes into the default store, and only while it is empty: its credentials, when loaded. */
async function loadDemoIfDue(config: Config, store: Store): Promise<DemoCredentials | undefined> {
  // A store fed from MarketBob gets no demo accounts beside the marketplace's own.
  const due = config.storeIsDefault && config.marketbob === undefined && (await store.isEmpty());
  return due ? loadDemoData(store, loadKeyMaterial(config)) : undefined;
}

/**
 * What the store holds, for the hint after the banner: the demo seller, nothing at all, or other
 * sellers. A store fed from MarketBob is being filled by the follower: it needs no hint.
 */
async function storeFinding(config: Config, store: Store): Promise<StoreFinding> {
  if (config.marketbob !== undefined) return 'other';
  if (await store.isEmpty()) return 'empty';
  return (await store.accountByUsername(DEMO_SELLER)) === undefined ? 'other' : 'demo';
}

/** One serving process: store, app, listen; on SIGTERM/SIGINT, finish the requests in flight and exit. */
async function serve(config: Config, logger: Logger, loadDemo: boolean): Promise<void> {
  const store = await openConfiguredStore(config);
  const keys = loadKeyMaterial(config);
  await checkSecretOpensStore(store, keys);
  const demo = loadDemo ? await loadDemoIfDue(config, store) : undefined;
  const finding = loadDemo && demo === undefined ? await storeFinding(config, store) : 'other';
  // One follower per machine: here when this process serves alone, in the primary when there are workers.
  const follower = cluster.isWorker ? undefined : await startFollowerThread(config, logger);
  const metrics = createServiceMetrics();
  if (follower !== undefined) {
    registerSourceMetrics(metrics.registry, () => follower.health());
    setSourceProbe(async () => follower.health());
  } else if (cluster.isWorker && config.marketbob !== undefined) {
    // The follower runs in the primary: /readyz asks it (its gauges are added to the sum there).
    setSourceProbe(askPrimaryForSourceHealth());
  }
  // A worker's own counts are summed with the others' by the primary, which also serves METRICS_PORT.
  const metricsText = cluster.isWorker ? shareWorkerMetrics(metrics.registry) : () => metrics.registry.metrics();
  let closing = false;
  const app = await buildApp({ config, store, keys, logger, metrics, metricsText, isShuttingDown: () => closing });
  const metricsServer =
    !cluster.isWorker && config.metricsPort !== undefined
      ? await guardedListen(config, 'METRICS_PORT', () =>
          startMetricsServer(config.metricsHost, config.metricsPort as number, metricsText),
        )
      : undefined;
  if (metricsServer) {
    const { address, port } = metricsServer.address() as AddressInfo;
    logger.info({ address, port }, 'metrics listening');
  }

  const shutdown = async (signal: NodeJS.Signals) => {
    // A second signal (Ctrl-C reaches a worker both from the terminal and from the primary) changes nothing.
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    setTimeout(() => {
      logger.error('requests still in flight after the grace period; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    await app.close();
    await follower?.stop();
    metricsServer?.close();
    await store.close();
    logger.info('stopped');
    // Every line out before exiting: pino writes standard output asynchronously, and the exit's
    // synchronous flush could otherwise write "stopped" before a "shutting down" still in flight.
    await flushLogger(logger);
    process.exit(0);
  };
  for (const signal of SIGNALS) process.on(signal, shutdown);

  await guardedListen(config, 'PORT', () => app.listen({ host: config.host, port: config.port }));
  if (!cluster.isWorker) printBanners(config, (app.server.address() as AddressInfo).port, demo, finding);
}

/**
 * Once the port is open: where everything is (every start), then the demo seller's key (the
 * first start) or what to do next (a later start with the demo data, an empty store).
 */
function printBanners(config: Config, port: number, demo: DemoCredentials | undefined, finding: StoreFinding): void {
  process.stdout.write(addressBanner(config, port, packageVersion()));
  if (demo !== undefined) process.stdout.write(demoBanner(config, port, demo));
  else process.stdout.write(nextStepsBanner(finding));
}

/**
 * The primary of `WORKERS` > 1: prepares the store once, forks the workers (which share the port
 * through node:cluster), prints the demo banner once they all listen, replaces a worker that dies,
 * and on SIGTERM/SIGINT passes the signal on and exits when every worker has finished: 0 when all
 * of them stopped cleanly.
 */
async function supervise(config: Config, logger: Logger): Promise<void> {
  // Opening the store migrates it: done once here, before any worker opens it. First, so that a
  // store directory that does not exist is refused before the secret file could be made in it.
  const store = await openConfiguredStore(config);
  let demo: DemoCredentials | undefined;
  let finding: StoreFinding = 'other';
  try {
    // Made (or checked) once here: a bad secret file, or a secret that cannot open the store's
    // keys, stops the start with one message, not one per worker.
    await checkSecretOpensStore(store, loadKeyMaterial(config));
    demo = await loadDemoIfDue(config, store);
    if (demo === undefined) finding = await storeFinding(config, store);
  } finally {
    await store.close();
  }
  const follower = await startFollowerThread(config, logger);
  let ownMetrics: Registry | undefined;
  if (follower !== undefined) {
    answerSourceHealth(() => follower.health());
    ownMetrics = new Registry();
    registerSourceMetrics(ownMetrics, () => follower.health());
  }
  // The workers' budgets, when Redis is not in use: counted here, one take at a time.
  answerCountersForWorkers();
  const metricsText = aggregateWorkerMetrics(ownMetrics);
  if (config.metricsPort !== undefined) {
    const metricsPort = config.metricsPort;
    const metricsServer = await guardedListen(config, 'METRICS_PORT', () =>
      startMetricsServer(config.metricsHost, metricsPort, metricsText),
    );
    const { address, port } = metricsServer.address() as AddressInfo;
    logger.info({ address, port }, 'metrics listening');
  }
  let stopping = false;
  let cleanExit = true;
  const listening = new Set<Worker>();
  let ready = false;

  const fork = () => cluster.fork();

  cluster.on('listening', (worker, address) => {
    listening.add(worker);
    if (ready || listening.size < config.workers) return;
    ready = true;
    logger.info({ workers: config.workers, port: address.port }, 'all workers listening');
    printBanners(config, address.port, demo, finding);
  });

  cluster.on('exit', (worker, code, signal) => {
    const wasListening = listening.delete(worker);
    if (stopping) {
      if (code !== 0) cleanExit = false;
      if (Object.keys(cluster.workers ?? {}).length === 0) exitAfterLogs(logger, cleanExit ? 0 : 1);
      return;
    }
    if (!wasListening) {
      // It never served: starting again would fail the same way (a port in use, a store out of reach).
      logger.fatal({ pid: worker.process.pid, code, signal }, 'a worker failed to start; stopping');
      stopping = true;
      cleanExit = false;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'a worker exited; starting another');
    fork();
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: stopping the workers');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    setTimeout(() => {
      logger.error('workers still running after the grace period; killing them');
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }, WORKERS_GRACE_MS).unref();
  };
  for (const signal of SIGNALS) process.on(signal, stop);

  for (let n = 0; n < config.workers; n++) fork();
}

/** Exits once the lines logged so far are written (see flushLogger). */
function exitAfterLogs(logger: Logger, code: number): void {
  void flushLogger(logger).then(() => process.exit(code));
}

async function main(): Promise<void> {
  // Before anything fills the heap: see holdTickObject.
  holdTickObject();
  // `--version` (also `npm start -- --version`): says what is installed, and starts nothing.
  if (process.argv.slice(2).includes('--version')) {
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  const config = readConfig();
  const logger = createLogger(config.logLevel);
  // A worker's lines say which worker wrote them.
  if (cluster.isWorker) return serve(config, logger.child({ worker: cluster.worker?.id }), false);
  if (config.workers > 1) return supervise(config, logger);
  return serve(config, logger, true);
}

main().catch((error: unknown) => {
  process.stderr.write(`marketplace-api failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

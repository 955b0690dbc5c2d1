/**
 * The MarketBob follower's thread (see start-follower-thread.ts): the follower and its store
 * connection live here, so that its syncs' mapping and its synchronous SQLite writes never hold
 * the thread that answers requests. It reads the process's config and key material as the
 * process did (a worker has a copy of its environment) and reports how it follows.
 */
import { isDeepStrictEqual } from 'node:util';
import { parentPort } from 'node:worker_threads';
import { loadConfig } from './config.js';
import type { FollowerReport, ToFollower } from './follower-thread-messages.js';
import { loadKeyMaterial } from './keys/key-material.js';
import { createLogger, flushLogger } from './logging.js';
import { startMarketbobFollower } from './marketbob/start-follower.js';

/** How often the follower's state is looked at, and sent when it changed. */
const REPORT_EVERY_MS = 100;

const port = parentPort;
if (!port) throw new Error('follower-thread runs as a worker thread');
const config = loadConfig();
const logger = createLogger(config.logLevel);
const send = (message: FollowerReport) => port.postMessage(message);

const follower = await startMarketbobFollower(config, loadKeyMaterial(config), logger);
let last: FollowerReport | undefined;
const report = () => {
  const state: FollowerReport = {
    type: 'state',
    following: follower?.following() ?? false,
    status: follower?.status(),
    settings: follower?.settings(),
  };
  if (isDeepStrictEqual(state, last)) return;
  last = state;
  send(state);
};
report();
send({ type: 'started' });
const timer = setInterval(report, REPORT_EVERY_MS);

port.on('message', (message: ToFollower) => {
  if (message.type !== 'stop') return;
  clearInterval(timer);
  void (async () => {
    await follower?.stop();
    await flushLogger(logger);
    // Ends this thread only, its follower stopped and its connections closed.
    process.exit(0);
  })();
});

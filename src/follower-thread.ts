/**
 * The MarketBob follower's thread (see start-follower-thread.ts): the follower and its store
 * connection live here, so that its syncs' mapping and its synchronous SQLite writes never hold
 * the thread that answers requests. It reads the process's config and key material as the
 * process did (a worker has a copy of its environment) and reports how it follows.
 */
import { isDeepStrictEqual } from 'node:util';
import { parentPort } from 'node:worker_threads';
import type { DestinationStream } from 'pino';
import { loadConfig } from './config.js';
import type { FollowerReport, ToFollower } from './follower-thread-messages.js';
import { loadKeyMaterial } from './keys/key-material.js';
import { createLogger, flushLogger, standardOutput } from './logging.js';
import { type RunningFollower, startMarketbobFollower } from './marketbob/start-follower.js';

/** How often the follower's state is looked at, and sent when it changed. */
const REPORT_EVERY_MS = 100;

const port = parentPort;
if (!port) throw new Error('follower-thread runs as a worker thread');
const config = loadConfig();
const send = (message: FollowerReport) => port.postMessage(message);

/**
 * Standard output, each line written once the code that logged it has run to its end, after the
 * state is reported: the follower logs a change (such as "cannot follow the source") just before
 * it counts it, and whoever reads the line must find the process's health saying so already.
 */
function reportingFirst(out: DestinationStream): DestinationStream {
  const flushable = out as DestinationStream & { flush?: (done: (error?: Error) => void) => void };
  const stream = {
    write(line: string) {
      setImmediate(() => {
        report();
        out.write(line);
      });
    },
    // After the lines waiting above (see flushLogger).
    flush(done: (error?: Error) => void) {
      setImmediate(() => (flushable.flush ? flushable.flush(done) : done()));
    },
  };
  return stream;
}

const logger = createLogger(config.logLevel, reportingFirst(standardOutput()));
let follower: RunningFollower | undefined;
let last: FollowerReport | undefined;
const report = () => {
  if (follower === undefined) return;
  const state: FollowerReport = {
    type: 'state',
    following: follower.following(),
    status: follower.status(),
    settings: follower.settings(),
  };
  if (isDeepStrictEqual(state, last)) return;
  last = state;
  send(state);
};
follower = await startMarketbobFollower(config, loadKeyMaterial(config), logger);
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

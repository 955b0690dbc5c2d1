import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { FollowerReport, ToFollower } from './follower-thread-messages.js';
import { judgeSourceHealth, STANDBY, UNKNOWN } from './marketbob/source-health.js';
import type { RunningFollower } from './marketbob/start-follower.js';
import { startWorker } from './threads/start-worker.js';

const THREAD_URL = new URL('./follower-thread.js', import.meta.url);

/**
 * Runs the MarketBob follower (startMarketbobFollower) in a thread of its own, and answers for it
 * here from what the thread reports: whether it follows, its health (judged here, at the time
 * asked), MarketBob's settings. Resolves once the thread's follower has started (after the first
 * full sync of an empty store, as startMarketbobFollower does). A thread that stops by itself is
 * logged and started again after a poll interval; meanwhile the health is `unknown`.
 */
export async function startFollowerThread(
  config: Config,
  logger: Logger,
  /** The environment the thread reads its configuration from: the process's, as `config` was read. */
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningFollower | undefined> {
  const marketbob = config.marketbob;
  if (marketbob === undefined) return undefined;
  let state: Extract<FollowerReport, { type: 'state' }> | undefined;
  let stopping = false;
  let worker: Worker;
  let restart: NodeJS.Timeout | undefined;

  const start = (): Promise<void> => {
    const thread = startWorker(THREAD_URL, { env });
    worker = thread;
    const started = new Promise<void>((resolve, reject) => {
      thread.on('message', (report: FollowerReport) => {
        if (report.type === 'state') state = report;
        else if (report.type === 'started') resolve();
      });
      thread.once('exit', (code) => {
        state = undefined;
        reject(new Error(`the MarketBob follower thread stopped (exit code ${code}) before it started`));
        if (stopping) return;
        logger.error({ code }, 'marketbob: the follower thread stopped; starting another');
        restart = setTimeout(() => void start().catch(() => {}), marketbob.pollSeconds * 1000);
        restart.unref();
      });
    });
    return started;
  };
  await start();

  return {
    following: () => state?.following ?? false,
    status: () => state?.status,
    settings: () => state?.settings,
    health: () => {
      if (state === undefined) return UNKNOWN;
      if (!state.following || state.status === undefined) return STANDBY;
      return judgeSourceHealth(state.status, marketbob.behindSeconds);
    },
    async stop() {
      stopping = true;
      clearTimeout(restart);
      const exited = once(worker, 'exit');
      worker.postMessage({ type: 'stop' } satisfies ToFollower);
      await exited;
    },
  };
}

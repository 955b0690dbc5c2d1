/**
 * The thread of the activity reports (see activity-reports.ts): reads and merges a seller's days
 * on a store connection of its own, so a report over a long history never holds the thread that
 * answers requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ActivityReader, openActivityReader } from '../store/activity/activity-reader.js';
import { StoreUnavailableError } from '../store/store.js';
import { lowerThreadPriority } from '../threads/thread-priority.js';
import { codeActivity, topCodes } from './activity-report.js';
import { reportPace } from './report-pace.js';
import type { ReportAnswer, ReportQuestion, ReportRequest, ReportWorkerData } from './report-worker-messages.js';

/**
 * The share of its time a top list works: the rest it waits, so that a list over a long history
 * (and the database connection reading it) leaves the cores to the requests answered meanwhile.
 */
const TOP_LIST_WORK_SHARE = 0.5;

const port = parentPort;
if (!port) throw new Error('report-worker runs as a worker thread');
const { location } = workerData as ReportWorkerData;
const send = (answer: ReportAnswer) => port.postMessage(answer);
// The requests' threads come first whenever both want a core.
lowerThreadPriority();

let reader: Promise<ActivityReader> | undefined;
/** Opened at the first question; tried again at the next when opening failed. */
const openReader = () => {
  reader ??= openActivityReader(location).catch((error: unknown) => {
    reader = undefined;
    throw error;
  });
  return reader;
};

async function answer(request: ReportQuestion & { readonly id: number }): Promise<void> {
  const { id } = request;
  try {
    const store = await openReader();
    if (request.type === 'top') {
      const { account, days, limit, now } = request;
      send({ id, type: 'top', top: await topCodes(store, account, days, limit, now, reportPace(TOP_LIST_WORK_SHARE)) });
    } else {
      const { account, codeKey, retentionDays, now } = request;
      send({ id, type: 'code', activity: await codeActivity(store, account, codeKey, retentionDays, now) });
    }
  } catch (error) {
    if (error instanceof StoreUnavailableError) send({ id, type: 'unavailable', reason: error.cause });
    else send({ id, type: 'failed', reason: error instanceof Error ? error.message : String(error) });
  }
}

port.on('message', (request: ReportRequest) => {
  if (request.type !== 'close') {
    void answer(request);
    return;
  }
  // Its connections closed, nothing keeps the thread: it ends by itself.
  void (reader ?? Promise.resolve(undefined))
    .then((open) => open?.close())
    .catch(() => undefined)
    .finally(() => port.close());
});

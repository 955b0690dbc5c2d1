/**
 * The writer thread (see background-writer.ts): one connection of its own to the store, which
 * makes the API's background writes (activity flushes and their checkpoints, keys' last use, the
 * webhook queue's bookkeeping) so that neither SQLite's synchronous statements nor the building of
 * PostgreSQL's and the reading of their answers hold the thread that answers requests. `close`
 * lets the calls in flight finish first.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { type Store, StoreUnavailableError, unavailableReason } from '../store/store.js';
import { SketchesNeededError, unpackDeltas } from './packed-deltas.js';
import type {
  FromWriter,
  PostedError,
  RecordedActivity,
  ToWriter,
  WriterCall,
  WriterThreadData,
} from './writer-messages.js';

/**
 * How long a write waits here for another connection's lock (an import, another process's claim):
 * longer than the API's connection may, since no request waits with it.
 */
const WRITER_BUSY_TIMEOUT_MS = 5_000;
/**
 * PostgreSQL connections the thread may open: one, as SQLite's writer has. Its writes take turns
 * there: a webhook claim waits for the part of an activity flush in progress (one transaction of
 * at most FLUSH_PART codes), never for the whole flush.
 */
const WRITER_POOL_SIZE = 1;

const port = parentPort;
if (!port) throw new Error('writer-thread runs as a worker thread');
const { location } = workerData as WriterThreadData;
const send = (message: FromWriter) => port.postMessage(message);

async function recordActivity(store: Store, call: Extract<WriterCall, { op: 'recordActivity' }>) {
  const rows = new Float64Array(call.deltas.count).fill(Number.NaN);
  try {
    await store.recordActivity(unpackDeltas(call.deltas, rows));
  } catch (error) {
    if (error instanceof SketchesNeededError) return { sketchesNeeded: true } satisfies RecordedActivity;
    throw error;
  }
  return { rows } satisfies RecordedActivity;
}

function run(store: Store, call: WriterCall): Promise<unknown> {
  // A file replaced or taken away is noticed as the API's connection notices it: when asked.
  try {
    store.changedSinceLastCheck();
  } catch {
    // Gone: the call below says so.
  }
  switch (call.op) {
    case 'recordKeyUses':
      return store.recordKeyUses(call.uses);
    case 'recordNamedKeyUses':
      return store.recordNamedKeyUses(call.uses);
    case 'recordActivity':
      return recordActivity(store, call);
    case 'dropActivityBefore':
      return store.dropActivityBefore(call.day);
    case 'claimDeliveries':
      return store.webhooks().claim(call.options);
    case 'finishDelivery':
      return store.webhooks().finish(call.outcome);
    case 'dropDeliveriesBefore':
      return store.webhooks().dropBefore(call.before);
    case 'updateEndpoint':
      return store.webhooks().updateEndpoint(call.id, call.change);
  }
}

function posted(error: unknown): PostedError {
  if (error instanceof StoreUnavailableError) return { unavailable: true, reason: error.cause };
  return { unavailable: false, reason: unavailableReason(error) };
}

let opened: Promise<Store> | undefined;
/** The connection, opened with the first call; a failure to open (told through that call) is tried again with the next. */
const connection = (): Promise<Store> => {
  opened ??= (
    location.kind === 'sqlite'
      ? openSqliteStore(location.path, false, WRITER_BUSY_TIMEOUT_MS)
      : openPostgresStore(location.url, { ...location, poolSize: WRITER_POOL_SIZE, backgroundWrites: true })
  ).then(
    (store) => {
      send({ type: 'opened' });
      return store;
    },
    (error: unknown) => {
      opened = undefined;
      throw error;
    },
  );
  return opened;
};
const inFlight = new Set<Promise<void>>();

port.on('message', (message: ToWriter) => {
  if (message.type === 'open') {
    // A failure is told with the first call, which tries again.
    connection().catch(() => {});
    return;
  }
  if (message.type === 'close') {
    void (async () => {
      await Promise.allSettled(inFlight);
      await (await opened?.catch(() => undefined))?.close();
      send({ type: 'closed' });
      port.close();
    })();
    return;
  }
  const { id, call } = message;
  const done = (async () => {
    try {
      const value = await run(await connection(), call);
      send({ type: 'done', id, value, thread: threadId });
    } catch (error) {
      send({ type: 'failed', id, error: posted(error), thread: threadId });
    }
  })().finally(() => inFlight.delete(done));
  inFlight.add(done);
});

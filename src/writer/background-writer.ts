import { once } from 'node:events';
import { threadId, type Worker } from 'node:worker_threads';
import { type ActivityDelta, type Store, StoreUnavailableError } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import type { DeliveryBookkeeping } from '../store/webhooks/webhook-store.js';
import { forEachInTurns } from '../threads/event-loop-turns.js';
import { startWorker } from '../threads/start-worker.js';
import { packDeltas } from './packed-deltas.js';
import type {
  FromWriter,
  PostedError,
  RecordedActivity,
  ToWriter,
  WriterCall,
  WriterThreadData,
} from './writer-messages.js';

/**
 * The writes a serving process makes in the background, for no request: purchase-code activity
 * flushes (and their drop of old days), keys' last use, and the webhook queue's bookkeeping
 * (claims, attempts' outcomes, retention, an endpoint disabled). They are made by a writer thread
 * with its own connection. On SQLite, better-sqlite3 runs statements synchronously, and a flush's
 * commit and checkpoint would otherwise hold every request of the process while they run. On
 * PostgreSQL the driver waits asynchronously, but building a flush's statements, reading their
 * answers and collecting what both left behind cost the API's thread 3 to 10 % of each validation
 * under a steady load. An in-memory SQLite store (which no other connection can see) makes them
 * itself.
 */
export interface BackgroundWriter
  extends Pick<Store, 'recordKeyUses' | 'recordNamedKeyUses' | 'recordActivity' | 'dropActivityBefore'> {
  /** The webhook queue's writes made for delivering (the reads stay with the serving store). */
  deliveries(): DeliveryBookkeeping;
  /**
   * Starts the writer thread and opens its connection, if there is one, ahead of the first write
   * (the server does so once it is ready); the first write starts it otherwise.
   */
  start(): void;
  /** The thread (its `threadId`) that made the last background write; undefined before any. */
  lastWriterThread(): number | undefined;
  /** Waits for every write handed over so far, then stops the writer thread, if any. */
  close(): Promise<void>;
}

/** Told when the writer thread stopped unexpectedly (never a secret in it): another starts with the next write. */
export type WriterStopped = (error: unknown) => void;

/** The background writer for the store at `location`, `store` being the serving process's connection to it. */
export function createBackgroundWriter(
  location: StoreLocation,
  store: Store,
  onStopped: WriterStopped,
): BackgroundWriter {
  if (location.kind === 'sqlite' && location.path === ':memory:') return storeWriter(store);
  return new WriterThread(location, onStopped);
}

/** The serving store makes the background writes itself (an in-memory SQLite store). */
function storeWriter(store: Store): BackgroundWriter {
  let last: number | undefined;
  const wrote = <T>(written: Promise<T>) =>
    written.then((value) => {
      last = threadId;
      return value;
    });
  return {
    recordKeyUses: (uses) => wrote(store.recordKeyUses(uses)),
    recordNamedKeyUses: (uses) => wrote(store.recordNamedKeyUses(uses)),
    recordActivity: (deltas) => wrote(store.recordActivity(deltas)),
    dropActivityBefore: (day) => wrote(store.dropActivityBefore(day)),
    deliveries: () => {
      const queue = store.webhooks();
      return {
        claim: (options) => wrote(queue.claim(options)),
        finish: (outcome) => wrote(queue.finish(outcome)),
        dropBefore: (before) => wrote(queue.dropBefore(before)),
        updateEndpoint: (id, change) => wrote(queue.updateEndpoint(id, change)),
      };
    },
    start: () => {},
    lastWriterThread: () => last,
    close: async () => {},
  };
}

const THREAD_URL = new URL('./writer-thread.js', import.meta.url);

/** A failure the writer thread reported, as its code and first line (see PostedError). */
export class BackgroundWriteError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'BackgroundWriteError';
  }
}

function errorOf({ unavailable, reason }: PostedError): Error {
  const error = new BackgroundWriteError(reason.message, reason.code);
  return unavailable ? new StoreUnavailableError({ cause: error }) : error;
}

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * The writer thread's end on the API's thread: posts each write (structured clone) and resolves
 * it with the thread's answer. The thread starts with the first write; one that stops (a crash)
 * fails the writes it held, is reported, and another starts with the next write. The thread keeps
 * the process alive only while writes are in flight, so that a shutdown waits for them.
 */
/**
 * The writer thread's heap, capped: left to grow, a heap handed a large flush grows to hold it and
 * keeps that size, and the process's memory with it; capped, it collects instead. A write holds at
 * most one part of a flush (FLUSH_PART codes, see activity-counter.ts), well under the cap.
 */
const WRITER_HEAP_LIMITS = { maxOldGenerationSizeMb: 48 } as const;

export class WriterThread implements BackgroundWriter {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, PendingCall>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private last: number | undefined;
  private closing = false;
  /** Whether the current thread has opened its connection. */
  private opened = false;

  constructor(
    private readonly location: StoreLocation,
    private readonly onStopped: WriterStopped,
  ) {}

  recordKeyUses(uses: Parameters<Store['recordKeyUses']>[0]): Promise<void> {
    return this.call({ op: 'recordKeyUses', uses }) as Promise<void>;
  }

  recordNamedKeyUses(uses: Parameters<Store['recordNamedKeyUses']>[0]): Promise<void> {
    return this.call({ op: 'recordNamedKeyUses', uses }) as Promise<void>;
  }

  async recordActivity(deltas: readonly ActivityDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    let answer = (await this.call({
      op: 'recordActivity',
      deltas: await packDeltas(deltas, false),
    })) as RecordedActivity;
    if ('sketchesNeeded' in answer) {
      answer = (await this.call({
        op: 'recordActivity',
        deltas: await packDeltas(deltas, true),
      })) as RecordedActivity;
    }
    if ('sketchesNeeded' in answer) throw new Error('the writer thread asked for sketches it was given');
    const { rows } = answer;
    await forEachInTurns(deltas, (delta, at) => {
      const row = rows[at] as number;
      if (!Number.isNaN(row)) delta.rowStored?.(row);
    });
  }

  dropActivityBefore(day: string): Promise<number> {
    return this.call({ op: 'dropActivityBefore', day }) as Promise<number>;
  }

  deliveries(): DeliveryBookkeeping {
    return {
      claim: (options) => this.call({ op: 'claimDeliveries', options }) as ReturnType<DeliveryBookkeeping['claim']>,
      finish: (outcome) => this.call({ op: 'finishDelivery', outcome }) as Promise<boolean>,
      dropBefore: (before) => this.call({ op: 'dropDeliveriesBefore', before }) as Promise<number>,
      updateEndpoint: (id, change) => this.call({ op: 'updateEndpoint', id, change }) as Promise<boolean>,
    };
  }

  lastWriterThread(): number | undefined {
    return this.last;
  }

  start(): void {
    if (this.closing || this.worker !== undefined) return;
    this.thread().postMessage({ type: 'open' } satisfies ToWriter);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.allSettled(this.inFlight);
    const worker = this.worker;
    if (worker === undefined) return;
    // Still starting, with nothing written and nothing to write: no reason to wait for it.
    if (!this.opened) {
      await worker.terminate();
      return;
    }
    worker.ref();
    const exited = once(worker, 'exit');
    worker.postMessage({ type: 'close' } satisfies ToWriter);
    await exited;
  }

  /** Ends the thread as a crash would (its writes in flight fail): for tests of the restart. */
  async interrupt(): Promise<void> {
    await this.worker?.terminate();
  }

  private call(call: WriterCall): Promise<unknown> {
    if (this.closing) {
      return Promise.reject(new StoreUnavailableError({ cause: new Error('the background writer is closed') }));
    }
    const worker = this.thread();
    const id = this.nextId++;
    const answered = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
    });
    const settled = answered.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    worker.ref();
    void settled.then(() => {
      this.inFlight.delete(settled);
      if (this.inFlight.size === 0 && this.worker === worker && !this.closing) worker.unref();
    });
    worker.postMessage({ type: 'call', id, call } satisfies ToWriter);
    return answered;
  }

  private thread(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = startWorker(THREAD_URL, {
      workerData: { location: this.location } satisfies WriterThreadData,
      resourceLimits: WRITER_HEAP_LIMITS,
    });
    worker.unref();
    worker.on('message', (message: FromWriter) => this.answered(message));
    worker.on('error', (error) => this.stopped(worker, error));
    worker.on('exit', (code) => this.stopped(worker, new Error(`the writer thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private answered(message: FromWriter): void {
    if (message.type === 'opened') this.opened = true;
    if (message.type === 'opened' || message.type === 'closed') return;
    const call = this.pending.get(message.id);
    if (call === undefined) return;
    this.pending.delete(message.id);
    this.last = message.thread;
    if (message.type === 'done') call.resolve(message.value);
    else call.reject(errorOf(message.error));
  }

  /** The thread ended: its writes in flight fail (their callers keep or retry them, as for any failed write). */
  private stopped(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.opened = false;
    const failed = this.pending;
    for (const call of failed.values()) call.reject(new StoreUnavailableError({ cause: error }));
    failed.clear();
    if (!this.closing) this.onStopped(error);
  }
}

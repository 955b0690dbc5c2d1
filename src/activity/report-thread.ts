import type { Worker } from 'node:worker_threads';
import { StoreUnavailableError } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import { startWorker } from '../threads/start-worker.js';
import type { CodeActivity, TopCode } from './activity-report.js';
import type { ReportAnswer, ReportQuestion, ReportRequest, ReportWorkerData } from './report-worker-messages.js';

/** Too many reports wait already (of this seller, or in all): the caller is answered "unavailable" rather than queued. */
export class ActivityReportsBusyError extends Error {
  constructor() {
    super('too many activity reports are waiting');
    this.name = 'ActivityReportsBusyError';
  }
}

/** The report thread, as the serving thread asks it. */
export interface ReportThread {
  /** The question's report, made on the thread; throws ActivityReportsBusyError when too many wait. */
  ask(question: ReportQuestion & { readonly type: 'top' }): Promise<TopCode[]>;
  ask(question: ReportQuestion & { readonly type: 'code' }): Promise<CodeActivity>;
  close(): Promise<void>;
}

export interface ReportThreadOptions {
  /** Reports that may wait at once, in all. */
  readonly maxWaiting: number;
  /** Reports one seller may have waiting at once: a seller asking many different lists waits for its own. */
  readonly maxWaitingPerAccount: number;
  /** The thread ends (its connections closed) after this long with nothing asked; the next question starts it again. */
  readonly idleMs: number;
}

const WORKER_URL = new URL('./report-worker.js', import.meta.url);

/** How long close waits for the thread to close its connections before it is stopped. */
const CLOSE_WAIT_MS = 5_000;

interface Waiting {
  readonly account: string;
  /** The thread asked: one that stops fails only its own questions. */
  readonly thread: Worker;
  resolve(answer: ReportAnswer): void;
  reject(error: unknown): void;
}

/** The thread stopped with reports unanswered: a failure of ours (500), not the store's. */
const threadStopped = (code: number) => new Error(`the activity report thread stopped (exit code ${code})`);

/**
 * One worker thread per process (each of WORKERS has its own), started at the first question,
 * with its own store connection (see report-worker.ts). Questions are answered in any order, by id.
 */
export function createReportThread(location: StoreLocation, options: ReportThreadOptions): ReportThread {
  let worker: Worker | undefined;
  let nextId = 1;
  const waiting = new Map<number, Waiting>();
  const waitingByAccount = new Map<string, number>();
  let idleTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const settled = (id: number): Waiting | undefined => {
    const entry = waiting.get(id);
    if (entry === undefined) return undefined;
    waiting.delete(id);
    const left = (waitingByAccount.get(entry.account) ?? 1) - 1;
    if (left === 0) waitingByAccount.delete(entry.account);
    else waitingByAccount.set(entry.account, left);
    if (waiting.size === 0 && !closed) {
      idleTimer = setTimeout(() => void stop(), options.idleMs);
      idleTimer.unref();
    }
    return entry;
  };

  /** Asks the thread to close its connections and end; stopped outright if it takes too long. */
  const stop = async () => {
    const ending = worker;
    worker = undefined;
    if (ending === undefined) return;
    const exited = new Promise<void>((resolve) => ending.once('exit', () => resolve()));
    ending.postMessage({ type: 'close' } satisfies ReportRequest);
    const timer = setTimeout(() => void ending.terminate(), CLOSE_WAIT_MS);
    timer.unref();
    await exited;
    clearTimeout(timer);
  };

  const started = () => {
    if (worker !== undefined) return worker;
    const thread = startWorker(WORKER_URL, { workerData: { location } satisfies ReportWorkerData });
    // The serving process ends when its server does, whatever this thread is doing.
    thread.unref();
    thread.on('message', (answer: ReportAnswer) => settled(answer.id)?.resolve(answer));
    const fail = (error: unknown) => {
      if (worker === thread) worker = undefined;
      for (const [id, entry] of waiting) {
        if (entry.thread !== thread) continue;
        settled(id)?.reject(error);
      }
    };
    thread.on('error', fail);
    thread.on('exit', (code) => fail(threadStopped(code)));
    worker = thread;
    return thread;
  };

  const ask = (question: ReportQuestion): Promise<ReportAnswer> => {
    if (closed) return Promise.reject(new StoreUnavailableError({ cause: new Error('the service is stopping') }));
    const ofAccount = waitingByAccount.get(question.account) ?? 0;
    if (waiting.size >= options.maxWaiting || ofAccount >= options.maxWaitingPerAccount) {
      return Promise.reject(new ActivityReportsBusyError());
    }
    clearTimeout(idleTimer);
    const thread = started();
    const id = nextId++;
    waitingByAccount.set(question.account, ofAccount + 1);
    return new Promise<ReportAnswer>((resolve, reject) => {
      waiting.set(id, { account: question.account, thread, resolve, reject });
      thread.postMessage({ ...question, id } satisfies ReportRequest);
    });
  };

  const unwrapped = async (question: ReportQuestion) => {
    const answer = await ask(question);
    switch (answer.type) {
      case 'top':
        return answer.top;
      case 'code':
        return answer.activity;
      case 'unavailable':
        throw new StoreUnavailableError({ cause: Object.assign(new Error(answer.reason.message), answer.reason) });
      case 'failed':
        throw new Error(`an activity report failed: ${answer.reason}`);
    }
  };

  return {
    ask: unwrapped as ReportThread['ask'],
    async close() {
      closed = true;
      clearTimeout(idleTimer);
      await stop();
    },
  };
}

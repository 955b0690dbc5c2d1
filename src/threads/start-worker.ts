import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Where a worker thread starts: its module's file and the flags it starts with, in the form both
 * `new Worker` and Piscina's pool take (`filename`, `execArgv`).
 */
export interface WorkerStart {
  readonly filename: string;
  /** Undefined: the thread takes the process's own flags, as a Worker does by default. */
  readonly execArgv: string[] | undefined;
}

// Compiled, this file and the threads' modules are .js under dist/. Run from the sources (the
// test runner, `npm run dev`), they are .ts, and a thread does not inherit the loader that reads
// them: it starts with a module that registers tsx's (found from here, so whatever the working
// directory), and nothing is written anywhere to start it.
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const REGISTER_TSX = new URL('./register-tsx.mjs', import.meta.url).href;

/**
 * How to start the thread whose module is `url`, named as an import names it, with `.js`
 * (`new URL('./writer-thread.js', import.meta.url)`): the compiled file; from the sources, the
 * .ts file beside it, tsx's loader registered first. `execArgv`: the caller's own flags, if any.
 */
export function workerStart(url: URL, execArgv?: readonly string[]): WorkerStart {
  if (url.protocol !== 'file:' || !url.pathname.endsWith('.js')) {
    throw new Error(`a worker thread's module is named by its compiled .js file: ${url.href}`);
  }
  if (!FROM_SOURCES) return { filename: fileURLToPath(url), execArgv: execArgv && [...execArgv] };
  const source = new URL(url);
  source.pathname = source.pathname.replace(/\.js$/, '.ts');
  return { filename: fileURLToPath(source), execArgv: [...(execArgv ?? []), '--import', REGISTER_TSX] };
}

/**
 * Starts a worker thread on the module `url` (see workerStart), compiled or from the sources.
 * `options` (`workerData`, `env`, `resourceLimits`, ...) are the Worker's, passed on as given.
 */
export function startWorker(url: URL, options: WorkerOptions = {}): Worker {
  const start = workerStart(url, options.execArgv);
  return new Worker(start.filename, { ...options, execArgv: start.execArgv });
}

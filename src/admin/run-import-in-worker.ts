import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StoreLocation } from '../config.js';
import { type ImportResult, importNdjson } from '../importer/import-ndjson.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import type { ImportWorkerData, ToServing, ToWorker } from './import-worker-messages.js';

/** The input went over its size limit: the import was rolled back. */
export class ImportTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the import is larger than ${limitBytes} bytes; nothing was written`);
    this.name = 'ImportTooLargeError';
  }
}

export interface WorkerImportOptions {
  readonly location: StoreLocation;
  /** The serving store: used directly only for an in-memory SQLite store, which no other connection can see. */
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly input: AsyncIterable<Uint8Array | string>;
  /** Bytes past which the import is refused (and rolled back). */
  readonly limitBytes: number;
}

// Compiled, the worker is a .js file beside this one. Under the test runner both are .ts: the
// worker then starts by registering tsx's loader (a worker does not inherit the runner's).
const ownExtension = extname(fileURLToPath(import.meta.url));
const WORKER_URL = new URL(`./import-worker${ownExtension}`, import.meta.url);

function startWorker(workerData: ImportWorkerData): Worker {
  if (ownExtension !== '.ts') return new Worker(WORKER_URL, { workerData });
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** Counts bytes as they pass and throws past the limit. */
async function* limited(input: AsyncIterable<Uint8Array | string>, limitBytes: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const piece of input) {
    const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
    total += chunk.byteLength;
    if (total > limitBytes) throw new ImportTooLargeError(limitBytes);
    yield chunk;
  }
}

/**
 * Runs `importNdjson` (the CLI's own import) over `input` in a worker thread with its own store
 * connection, so the serving event loop stays free while it parses and writes. Same rules and
 * result as the CLI: all or nothing. Throws `ImportTooLargeError` past `limitBytes`, or an Error
 * when the input breaks off or the store fails; nothing is written then.
 */
export async function runImportInWorker(options: WorkerImportOptions): Promise<ImportResult> {
  const input = limited(options.input, options.limitBytes);
  if (options.location.kind === 'sqlite' && options.location.path === ':memory:') {
    return importNdjson(options.store, options.keys, input);
  }
  const data: ImportWorkerData = {
    location: options.location,
    digestKey: options.keys.digestKey,
    encryptionKey: options.keys.encryptionKey,
  };
  const worker = startWorker(data);
  const iterator = input[Symbol.asyncIterator]();
  let inputError: unknown;
  const send = (message: ToWorker) => worker.postMessage(message);
  try {
    return await new Promise<ImportResult>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`the import worker stopped (exit code ${code})`)));
      worker.on('message', (message: ToServing) => {
        switch (message.type) {
          case 'more':
            iterator.next().then(
              (next) => send(next.done ? { type: 'end' } : { type: 'chunk', chunk: next.value }),
              (error: unknown) => {
                inputError = error;
                send({ type: 'abort', reason: error instanceof Error ? error.message : String(error) });
              },
            );
            return;
          case 'result':
            resolve(message.result);
            return;
          case 'failed':
            reject(inputError ?? new Error(message.reason));
            return;
        }
      });
    });
  } finally {
    await worker.terminate();
    await iterator.return?.(undefined);
  }
}

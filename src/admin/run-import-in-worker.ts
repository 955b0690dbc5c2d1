import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ImportResult, importNdjson } from '../importer/import-ndjson.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import { startWorker } from '../threads/start-worker.js';
import type { ImportWorkerAnswer, ImportWorkerData } from './import-worker-messages.js';

/** The input went over its size limit: nothing was imported. */
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
  readonly input: AsyncIterable<Uint8Array | string> | NodeJS.ReadableStream;
  /** Bytes past which the import is refused. */
  readonly limitBytes: number;
  /** The import may replace an account's current key (see `ImportOptions`). */
  readonly replaceKeys?: boolean;
}

const WORKER_URL = new URL('./import-worker.js', import.meta.url);

/** Writes the input to `file` as fast as it comes, refusing it past `limitBytes`. */
async function spool(input: WorkerImportOptions['input'], file: string, limitBytes: number): Promise<void> {
  let total = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      done(total > limitBytes ? new ImportTooLargeError(limitBytes) : null, chunk);
    },
  });
  await pipeline(input, counter, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
}

/** Runs the import of `file` in a worker thread with a store connection of its own. */
function importInWorker(
  location: StoreLocation,
  keys: KeyMaterial,
  file: string,
  replaceKeys: boolean,
): Promise<ImportResult> {
  const worker = startWorker(WORKER_URL, {
    workerData: {
      location,
      file,
      digestKey: keys.digestKey,
      encryptionKey: keys.encryptionKey,
      replaceKeys,
    } satisfies ImportWorkerData,
  });
  return new Promise<ImportResult>((resolve, reject) => {
    worker.once('message', (answer: ImportWorkerAnswer) => {
      if (answer.type === 'result') resolve(answer.result);
      else reject(new Error(answer.reason));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the import worker stopped (exit code ${code})`)));
  }).finally(() => worker.terminate());
}

/**
 * Runs `importNdjson` (the CLI's own import) over `input` with the CLI's rules and result (all or
 * nothing). The input is first written to a private temp file as fast as it arrives (a request
 * must arrive whole within the server's request timeout, which an import paced by its writes
 * would overrun), then imported in a worker thread with its own store connection, so the serving
 * event loop stays free while it parses and writes. Throws `ImportTooLargeError` past
 * `limitBytes`, or an Error when the input breaks off or the store fails; nothing is written then.
 */
export async function runImportInWorker(options: WorkerImportOptions): Promise<ImportResult> {
  const dir = await mkdtemp(join(tmpdir(), 'marketplace-import-'));
  const file = join(dir, 'import.ndjson');
  const replaceKeys = options.replaceKeys ?? false;
  try {
    await spool(options.input, file, options.limitBytes);
    if (options.location.kind === 'sqlite' && options.location.path === ':memory:') {
      return await importNdjson(options.store, options.keys, createReadStream(file), { replaceKeys });
    }
    return await importInWorker(options.location, options.keys, file, replaceKeys);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

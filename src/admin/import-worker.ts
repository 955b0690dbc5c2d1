/**
 * The worker thread of `runImportInWorker`: opens a store connection of its own and runs the
 * importer over the spooled NDJSON file, so a big import (whose SQLite writes are synchronous)
 * never blocks the thread that answers the API.
 */
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { importNdjson } from '../importer/import-ndjson.js';
import { openStore } from '../store/open-store.js';
import type { ImportWorkerAnswer, ImportWorkerData } from './import-worker-messages.js';

const port = parentPort;
if (!port) throw new Error('import-worker runs as a worker thread');
const { location, file, digestKey, encryptionKey, replaceKeys } = workerData as ImportWorkerData;
const keys = { digestKey: Buffer.from(digestKey), encryptionKey: Buffer.from(encryptionKey) };
const send = (answer: ImportWorkerAnswer) => port.postMessage(answer);

try {
  const store = await openStore(location);
  try {
    const input = createReadStream(file, { highWaterMark: 1 << 20 });
    send({ type: 'result', result: await importNdjson(store, keys, input, { replaceKeys }) });
  } finally {
    await store.close();
  }
} catch (error) {
  send({ type: 'failed', reason: error instanceof Error ? error.message : String(error) });
}

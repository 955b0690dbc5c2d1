/**
 * The worker thread of `runImportInWorker`: opens a store connection of its own and runs the
 * importer over chunks it pulls from the serving thread one at a time, so a big import (whose
 * SQLite writes are synchronous) never blocks the thread that answers the API.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { importNdjson } from '../importer/import-ndjson.js';
import { openStore } from '../store/open-store.js';
import type { ImportWorkerData, ToServing, ToWorker } from './import-worker-messages.js';

const port = parentPort;
if (!port) throw new Error('import-worker runs as a worker thread');
const { location, digestKey, encryptionKey } = workerData as ImportWorkerData;
const keys = { digestKey: Buffer.from(digestKey), encryptionKey: Buffer.from(encryptionKey) };

const send = (message: ToServing) => port.postMessage(message);

/** Asks for each chunk only when the importer wants it: the request is read no faster than it is imported. */
async function* pulledChunks(): AsyncGenerator<Uint8Array> {
  for (;;) {
    const next = new Promise<ToWorker>((resolve) => port?.once('message', resolve));
    send({ type: 'more' });
    const message = await next;
    if (message.type === 'end') return;
    if (message.type === 'abort') throw new Error(message.reason);
    yield message.chunk;
  }
}

try {
  const store = await openStore(location);
  try {
    send({ type: 'result', result: await importNdjson(store, keys, pulledChunks()) });
  } finally {
    await store.close();
  }
} catch (error) {
  send({ type: 'failed', reason: error instanceof Error ? error.message : String(error) });
}

import type { StoreLocation } from '../config.js';
import type { ImportResult } from '../importer/import-ndjson.js';

/** What the import worker starts with: where the store is, and the key material (as plain bytes). */
export interface ImportWorkerData {
  readonly location: StoreLocation;
  readonly digestKey: Uint8Array;
  readonly encryptionKey: Uint8Array;
}

/** From the serving thread: the next chunk of NDJSON, the end of it, or a reason to roll back. */
export type ToWorker =
  | { readonly type: 'chunk'; readonly chunk: Uint8Array }
  | { readonly type: 'end' }
  | { readonly type: 'abort'; readonly reason: string };

/** From the worker: send the next chunk; the import's result; or why it failed (nothing written). */
export type ToServing =
  | { readonly type: 'more' }
  | { readonly type: 'result'; readonly result: ImportResult }
  | { readonly type: 'failed'; readonly reason: string };

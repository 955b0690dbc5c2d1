import type { ImportResult } from '../importer/import-ndjson.js';
import type { StoreLocation } from '../store/store-location.js';

/** What the import worker starts with: where the store and the NDJSON file are, and the key material (as plain bytes). */
export interface ImportWorkerData {
  readonly location: StoreLocation;
  readonly file: string;
  readonly digestKey: Uint8Array;
  readonly encryptionKey: Uint8Array;
  /** The import may give an account another key than its current one (see `ImportOptions`). */
  readonly replaceKeys: boolean;
}

/** From the worker: the import's result, or why it failed (nothing written). */
export type ImportWorkerAnswer =
  | { readonly type: 'result'; readonly result: ImportResult }
  | { readonly type: 'failed'; readonly reason: string };

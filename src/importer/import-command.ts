import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';

export interface ImportCommandOptions {
  readonly store: Store;
  readonly keys: KeyMaterial;
  /** A file path, or '-' for standard input. */
  readonly file: string;
}

/** Imports the file; prints counts on success or `line N: reason` lines on failure. (To be written.) */
export async function runImportCommand(_options: ImportCommandOptions): Promise<boolean> {
  throw new Error('not built yet');
}

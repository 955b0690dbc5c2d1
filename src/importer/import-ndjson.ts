import type { KeyMaterial } from '../keys/server-secret.js';
import { addImportedSigningKeys, isSigningKeyLine, readSigningKeyLine } from '../signing/signing-key-lines.js';
import type { SigningKeyRow } from '../store/database.js';
import type { Store } from '../store/store.js';
import { type ImportCounts, ImportRun, type LineError } from './import-run.js';
import { LINE_TOO_LONG, MAX_LINE_CHARS, type NdjsonInput, ndjsonLines } from './ndjson-lines.js';

export type { ImportCounts, LineError } from './import-run.js';
export { MAX_LISTED_ERRORS } from './import-run.js';

/**
 * What an import did. On success, the rows inserted, updated and left unchanged per type; on
 * failure nothing was written, and the first bad lines (up to `MAX_LISTED_ERRORS`) are listed,
 * in file order, with the count of them all.
 */
export type ImportResult =
  | { readonly ok: true; readonly counts: ImportCounts }
  | { readonly ok: false; readonly errors: readonly LineError[]; readonly errorCount: number };

/** How far an import has read. */
export interface ImportProgress {
  readonly bytesRead: number;
  /** Physical lines read, blank ones included. */
  readonly linesRead: number;
}

export interface ImportOptions {
  /** Called after each chunk of input. */
  onProgress?(progress: ImportProgress): void;
  /**
   * Lets an account line give an account in the store another key than its current one (CLI
   * `--replace-keys`, admin `replace_keys=true`); the replaced key, and any key a rotation
   * retired, then stop at once. Without it such a line is a bad line: an old export imported
   * again would otherwise bring back a key that was rotated away (a leaked one, maybe), silently.
   */
  readonly replaceKeys?: boolean;
}

/** Thrown inside the store's transaction to roll it back, carrying the bad lines out. */
class DiscardedImport extends Error {
  constructor(readonly result: ImportResult & { ok: false }) {
    super('import discarded: the file has bad lines');
  }
}

/**
 * Loads accounts, items and purchases from NDJSON (SPEC 5), all or nothing: the whole input is
 * read in one store transaction, committed only when every line is good. Streams: the input is
 * never held whole in memory, nor is a line over MAX_LINE_CHARS (it is a bad line).
 *
 * Throws (after rolling back) when the input cannot be read or the store fails; bad lines are
 * not an exception but an `ok: false` result. No message, thrown or returned, holds a key.
 */
export async function importNdjson(
  store: Store,
  keys: KeyMaterial,
  input: NodeJS.ReadableStream | NdjsonInput,
  options: ImportOptions = {},
): Promise<ImportResult> {
  // An export's signing key pairs: added once the records are committed (see addImportedSigningKeys).
  const signingKeys: Omit<SigningKeyRow, 'generation'>[] = [];
  try {
    const result = await store.runImport(async (session) => {
      const run = new ImportRun(session, keys, options.replaceKeys ?? false);
      for await (const chunk of ndjsonLines(input as NdjsonInput)) {
        let line = chunk.firstLineNumber;
        for (const text of chunk.lines) {
          let ready: boolean;
          if (text === LINE_TOO_LONG) ready = run.addTooLong(line, MAX_LINE_CHARS);
          else if (isSigningKeyLine(text)) {
            const read = readSigningKeyLine(text, keys);
            if (read.ok) signingKeys.push(read.row);
            ready = read.ok ? false : run.addBad(line, read.message);
          } else ready = run.add(line, text);
          if (ready) await run.flush();
          line++;
        }
        options.onProgress?.({ bytesRead: chunk.bytesRead, linesRead: line - 1 });
      }
      const result = await run.finish();
      if (!result.ok) throw new DiscardedImport(result);
      return result;
    });
    if (signingKeys.length > 0) await addImportedSigningKeys(store.signingKeys(), signingKeys);
    return result;
  } catch (error) {
    if (error instanceof DiscardedImport) return error.result;
    throw error;
  }
}

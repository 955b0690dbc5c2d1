import { open } from 'node:fs/promises';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import { importNdjson } from './import-ndjson.js';
import { createProgressBar, noProgress, type ProgressDisplay } from './import-progress.js';
import { importReport } from './import-report.js';

/** A stream to print to; a terminal says so (`isTTY`), and only then shows a progress bar. */
export type OutputStream = NodeJS.WritableStream & { readonly isTTY?: boolean };

export interface ImportCommandOptions {
  readonly store: Store;
  readonly keys: KeyMaterial;
  /** A file path, or '-' for standard input. */
  readonly file: string;
  /** `--replace-keys`: lines may give an account another key than its current one. */
  readonly replaceKeys?: boolean;
  /** Defaults to the process's own streams. */
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: OutputStream;
  readonly stderr?: OutputStream;
}

const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * `import FILE`: imports the file (or standard input for '-'), all or nothing. Prints the counts
 * per type on success (stdout), or `line N: reason` for the first bad lines and a last line
 * saying nothing was written (stderr). A file that cannot be read, or a store that fails, gives
 * one error line. True on success.
 */
export async function runImportCommand(options: ImportCommandOptions): Promise<boolean> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const print = (stream: OutputStream, lines: readonly string[]) => {
    if (lines.length > 0) stream.write(`${lines.join('\n')}\n`);
  };

  let input: NodeJS.ReadableStream;
  let totalBytes: number | undefined;
  let close = async () => {};
  if (options.file === '-') {
    input = options.stdin ?? process.stdin;
  } else {
    try {
      const handle = await open(options.file, 'r');
      close = () => handle.close();
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await close();
        print(stderr, [`cannot read ${options.file}: not a file`]);
        return false;
      }
      totalBytes = stats.size;
      input = handle.createReadStream({ highWaterMark: READ_CHUNK_BYTES, autoClose: false });
    } catch (error) {
      print(stderr, [`cannot read ${options.file}: ${describeFileError(error)}`]);
      return false;
    }
  }

  const progress: ProgressDisplay = stderr.isTTY ? createProgressBar(stderr, totalBytes) : noProgress;
  try {
    const result = await importNdjson(options.store, options.keys, input, {
      onProgress: progress.update,
      replaceKeys: options.replaceKeys ?? false,
    });
    progress.stop();
    const report = importReport(result);
    print(stdout, report.stdout);
    print(stderr, report.stderr);
    return result.ok;
  } catch (error) {
    progress.stop();
    const reason = error instanceof Error ? error.message : String(error);
    print(stderr, [`import failed: ${reason}; nothing was written`]);
    return false;
  } finally {
    await close();
  }
}

function describeFileError(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'not a file';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

import { once } from 'node:events';
import { createWriteStream, fchmodSync, fstatSync, type Stats } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { StoreSnapshot } from '../store/snapshot.js';
import { type ExportCounts, exportNdjson } from './export-ndjson.js';

/** Standard output's file descriptor. */
const STDOUT_FD = 1;

export interface ExportCommandOptions {
  readonly keys: KeyMaterial;
  /** Runs the export over a consistent snapshot of the store. */
  readonly read: (work: (snapshot: StoreSnapshot) => Promise<ExportCounts>) => Promise<ExportCounts>;
  /** A file path, or '-' (or undefined) for standard output. */
  readonly file: string | undefined;
  /** Defaults to the process's own streams. */
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
}

/**
 * `export [FILE]`: writes the whole store as import NDJSON to FILE or standard output. A file
 * holds every account's key in clear, so it is made readable by its owner only (mode 0600); it
 * is written beside FILE under another name and renamed at the end, so a failed export never
 * leaves half a file where a good one was. Prints the counts to stderr. True on success.
 */
export async function runExportCommand(options: ExportCommandOptions): Promise<boolean> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const file = options.file === undefined || options.file === '-' ? undefined : options.file;
  try {
    if (file === undefined && options.stdout === undefined) protectRedirectedStdout(stderr);
    const counts =
      file === undefined
        ? await options.read((s) => exportNdjson(s, options.keys, stdout))
        : await toFile(file, options);
    stderr.write(
      `exported ${counts.accounts} accounts, ${counts.items} items, ${counts.purchases} purchases` +
        `${file === undefined ? '' : ` to ${file} (it holds every API key: keep it safe)`}\n`,
    );
    return true;
  } catch (error) {
    stderr.write(`export failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return false;
  }
}

/**
 * `export > FILE`: the shell made FILE with its umask (0644, usually) before the export started.
 * Standard output being a regular file of ours, it is made 0600 before any key is written to it;
 * one that cannot be (another owner's) is said so on stderr, and the export goes on.
 */
function protectRedirectedStdout(stderr: NodeJS.WritableStream): void {
  let stats: Stats;
  try {
    stats = fstatSync(STDOUT_FD);
  } catch {
    return;
  }
  if (!stats.isFile() || (stats.mode & 0o077) === 0) return;
  try {
    fchmodSync(STDOUT_FD, 0o600);
  } catch {
    stderr.write(
      `warning: standard output is a file others may read (mode ${(stats.mode & 0o777).toString(8)}), and it could not be made 0600\n`,
    );
  }
}

async function toFile(file: string, options: ExportCommandOptions): Promise<ExportCounts> {
  const partial = join(dirname(file), `.${basename(file)}.${process.pid}.partial`);
  const out = createWriteStream(partial, { flags: 'wx', mode: 0o600, highWaterMark: 1 << 20 });
  try {
    await once(out, 'open');
    const counts = await options.read((snapshot) => exportNdjson(snapshot, options.keys, out));
    out.end();
    await finished(out);
    await rename(partial, file);
    return counts;
  } catch (error) {
    out.destroy();
    await rm(partial, { force: true });
    throw error;
  }
}

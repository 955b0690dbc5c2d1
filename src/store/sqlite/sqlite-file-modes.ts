import { chmodSync, closeSync, constants, existsSync, fchmodSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The SQLite store's files hold every account's key digest and sealed key, password hashes and
 * session hashes: readable by their owner only, whatever the process's umask.
 */

/** The SQLite path cannot be used: one line naming the path and the fix (no secret in it). */
export class SqlitePathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqlitePathError';
  }
}

/** What SQLite keeps beside the database file (in WAL mode), made with the database file's own mode. */
const SIDE_FILES = ['-wal', '-shm'] as const;

/**
 * Readies `path` for SQLite to open: its directory must exist, unless `createDirectory` (the
 * default store, `./data`), which is then made with mode 0700. A directory that does not exist is
 * refused rather than made: a typo in DATABASE_URL would otherwise start an empty store in a new
 * place, silently. The database file is made with mode 0600 before SQLite opens it (SQLite makes
 * its -wal and -shm files with the database file's mode), and an existing one, with its -wal and
 * -shm, loses any group or other permission it had. An existing directory group or others may
 * write to is refused (see refuseWritableByOthers).
 */
export function prepareSqliteFile(path: string, createDirectory: boolean): void {
  const directory = dirname(path);
  if (!existsSync(directory)) {
    if (!createDirectory) {
      throw new SqlitePathError(
        `DATABASE_URL: the directory ${directory} of the SQLite store does not exist: create it (mkdir -m 700) or name another path`,
      );
    }
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    // mkdir's mode passes through the umask: set it exactly.
    chmodSync(directory, 0o700);
  } else {
    refuseWritableByOthers(directory);
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    for (const file of [path, ...SIDE_FILES.map((suffix) => `${path}${suffix}`)]) tighten(file);
    return;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/**
 * A directory others may write to lets them swap the store, its -wal or the secret file beside it
 * for their own (a key of theirs, an account they made): refused, not tightened, since whoever
 * made it so may have meant it for something else as well.
 */
function refuseWritableByOthers(directory: string): void {
  const mode = statSync(directory).mode & 0o7777;
  if ((mode & 0o022) === 0) return;
  const who =
    (mode & 0o020) !== 0 && (mode & 0o002) !== 0 ? 'group and others' : (mode & 0o020) !== 0 ? 'group' : 'others';
  throw new SqlitePathError(
    `DATABASE_URL: the directory ${directory} of the SQLite store may be written by ${who} ` +
      `(mode ${mode.toString(8).padStart(4, '0')}), who could replace the store or its secret: ` +
      `run chmod go-w ${directory} (or chmod 700 ${directory}), or name a path in a directory of this user's own`,
  );
}

/** Takes away group and other permissions from an existing file of ours; leaves anything else alone. */
function tighten(file: string): void {
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return;
  }
  if ((mode & 0o077) === 0) return;
  try {
    chmodSync(file, mode & 0o700);
  } catch {
    // Not ours to change (another owner): SQLite opens it as it is, as before.
  }
}

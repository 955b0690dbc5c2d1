import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The two keys derived from the server secret: one per purpose, so neither can stand in for the other. */
export interface KeyMaterial {
  readonly digestKey: Buffer;
  readonly encryptionKey: Buffer;
}

/** The fewest bytes a server secret may have, in SECRET_KEY or in `secret.key`. */
export const MIN_SECRET_BYTES = 32;

/** Derives the key material from the server secret (any string of at least 32 characters). */
export function deriveKeyMaterial(secret: string): KeyMaterial {
  const ikm = createHash('sha256').update(secret, 'utf8').digest();
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', ikm, 'marketplace-api', info, 32));
  return { digestKey: derive('api-key-digest'), encryptionKey: derive('api-key-encryption') };
}

/**
 * The secret file cannot be used: one line naming the file and the fix, never its contents.
 * The server and the CLI print the message alone and stop.
 */
export class ServerSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerSecretError';
  }
}

/**
 * Reads the secret kept beside an SQLite database, making it (32 random bytes, hex, mode 0600)
 * the first time. Refuses a file that others than its owner may read (the secret digests and
 * seals every API key) and one shorter than MIN_SECRET_BYTES (an empty file is what a full disk
 * leaves at first start: every key would then be derived from nothing).
 */
export function loadOrCreateSecretFile(path: string): string {
  const existing = readSecretFile(path);
  if (existing !== undefined) return existing;
  createSecretFile(path);
  const created = readSecretFile(path);
  if (created === undefined) throw new ServerSecretError(`${path} vanished right after it was made: start again`);
  return created;
}

/** The file's secret, checked; undefined when there is no file. */
function readSecretFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ServerSecretError(`cannot read the server secret ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if (mode & 0o077) {
      throw new ServerSecretError(
        `the server secret ${path} is open to group or others (mode ${mode.toString(8).padStart(4, '0')}): run chmod 600 ${path}`,
      );
    }
    const secret = readFileSync(fd, 'utf8').trim();
    const bytes = Buffer.byteLength(secret);
    if (bytes < MIN_SECRET_BYTES) {
      throw new ServerSecretError(
        `the server secret ${path} holds ${bytes} bytes, fewer than ${MIN_SECRET_BYTES} (a full disk at first start leaves it empty): ` +
          `restore it from a backup, or delete it to have a new one made and give every account a new key (keys rotate)`,
      );
    }
    return secret;
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes the file whole or not at all: the secret is written and synced under a temp name in the
 * same directory, then hard-linked to the final name. `link` fails when the name exists, so of two
 * processes starting at once exactly one makes the file, and neither ever reads a half-written one.
 */
function createSecretFile(path: string): void {
  const directory = dirname(path);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const temp = join(directory, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, path);
    } catch (error) {
      // Another process made it first: its file is the one everyone uses.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    syncDirectory(directory);
  } catch (error) {
    if (error instanceof ServerSecretError) throw error;
    throw new ServerSecretError(
      `cannot make the server secret ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}): ` +
        `check that its directory is writable and the disk has room`,
    );
  } finally {
    rmSync(temp, { force: true });
  }
}

/** So that the new name survives a crash, not only the file's contents. */
function syncDirectory(directory: string): void {
  const fd = openSync(directory, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

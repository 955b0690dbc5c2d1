import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The two keys derived from the server secret: one per purpose, so neither can stand in for the other. */
export interface KeyMaterial {
  readonly digestKey: Buffer;
  readonly encryptionKey: Buffer;
}

/** Derives the key material from the server secret (any string of at least 32 characters). */
export function deriveKeyMaterial(secret: string): KeyMaterial {
  const ikm = createHash('sha256').update(secret, 'utf8').digest();
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', ikm, 'marketplace-api', info, 32));
  return { digestKey: derive('api-key-digest'), encryptionKey: derive('api-key-encryption') };
}

/**
 * Reads the secret kept beside an SQLite database, making it (32 random bytes, hex, mode 0600)
 * the first time. Made with the exclusive flag so two processes starting at once agree on one.
 */
export function loadOrCreateSecretFile(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(path, 'utf8').trim();
}

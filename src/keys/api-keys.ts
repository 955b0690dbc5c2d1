import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { NO_KEY_PREFIX } from '../domain/api-key-format.js';
import type { StoredKey } from '../store/store.js';
import type { KeyMaterial } from './server-secret.js';

/** A new API key: 32 random bytes, hex. */
export function generateApiKey(): string {
  return randomBytes(32).toString('hex');
}

/** The HMAC-SHA256 digest under which the store finds an account by its key. */
export function digestApiKey(material: KeyMaterial, key: string): string {
  return createHmac('sha256', material.digestKey).update(key, 'utf8').digest('hex');
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM: iv, tag and ciphertext, base64url, so the owner can be shown the key again. */
export function encryptApiKey(material: KeyMaterial, key: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', material.encryptionKey, iv);
  const body = Buffer.concat([cipher.update(key, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** Throws when the ciphertext was not made with this server secret or was altered. */
export function decryptApiKey(material: KeyMaterial, sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64url');
  const iv = bytes.subarray(0, IV_BYTES);
  const tag = bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', material.encryptionKey, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/**
 * The key columns of an account that has no key (a MarketBob user without an `api_key`): a digest
 * no key can have (an HMAC digest is hex, never with a colon), unique as the column wants, and no
 * ciphertext. `accounts.key_digest` stays NOT NULL: the lookup by key can never find such an account.
 */
export function noKey(): StoredKey {
  return { digest: `${NO_KEY_PREFIX}${randomBytes(16).toString('hex')}`, cipher: '' };
}

export { isKeyDigest } from '../domain/api-key-format.js';

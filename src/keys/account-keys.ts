import type { Store } from '../store/store.js';
import { decryptApiKey, digestApiKey, encryptApiKey, generateApiKey } from './api-keys.js';
import type { KeyMaterial } from './server-secret.js';

/** The server secret in use is not the one the store's keys were sealed with. */
export class WrongSecretError extends Error {
  constructor() {
    super(
      'the stored key cannot be decrypted with this server secret: use the SECRET_KEY (or secret.key) ' +
        'the store was filled with, or give the account a new key with `keys rotate`',
    );
    this.name = 'WrongSecretError';
  }
}

/** The account's current key, decrypted for its owner; undefined when there is no such account. */
export async function showKey(store: Store, material: KeyMaterial, username: string): Promise<string | undefined> {
  const account = await store.accountByUsername(username);
  if (!account) return undefined;
  try {
    return decryptApiKey(material, account.key_cipher);
  } catch {
    throw new WrongSecretError();
  }
}

/** Gives the account a new key, which replaces the old one at once; undefined when there is no such account. */
export async function rotateKey(store: Store, material: KeyMaterial, username: string): Promise<string | undefined> {
  const key = generateApiKey();
  const replaced = await store.replaceAccountKey(username, {
    digest: digestApiKey(material, key),
    cipher: encryptApiKey(material, key),
  });
  return replaced ? key : undefined;
}

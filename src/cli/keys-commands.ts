import { decryptApiKey, digestApiKey, encryptApiKey, generateApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';

/** The account's current key, decrypted for its owner; undefined when there is no such account. */
export async function showKey(store: Store, material: KeyMaterial, username: string): Promise<string | undefined> {
  const account = await store.accountByUsername(username);
  return account ? decryptApiKey(material, account.key_cipher) : undefined;
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

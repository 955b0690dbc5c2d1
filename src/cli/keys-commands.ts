import { decryptApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';

export { rotateKey } from '../operations/account-operations.js';

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

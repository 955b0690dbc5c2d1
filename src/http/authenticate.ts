import type { AccountRow } from '../domain/records.js';
import { digestApiKey, digestsEqual } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import { ApiError } from './api-error.js';

/**
 * The active account that owns the key; 401 for a key that is unknown, replaced, or whose account
 * is suspended, never saying which. The store is searched by the key's HMAC digest, so the key
 * itself is never compared or kept.
 */
export async function authenticate(store: Store, material: KeyMaterial, apiKey: string): Promise<AccountRow> {
  const digest = digestApiKey(material, apiKey);
  const account = await store.accountByKeyDigest(digest);
  if (account?.status !== 'active' || !digestsEqual(account.key_digest, digest)) {
    throw new ApiError('invalidRequest');
  }
  return account;
}

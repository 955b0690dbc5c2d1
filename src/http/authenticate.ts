import type { AccountRow } from '../domain/records.js';
import { digestApiKey, digestsEqual } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import { ApiError } from './api-error.js';
import type { ResourceCache, Serialised } from './resource-cache.js';

/**
 * The active account that owns the key; 401 for a key that is unknown, replaced, or whose account
 * is suspended, never saying which. Accounts are found by the key's HMAC digest, so the key
 * itself is never compared or kept.
 */
export async function authenticate(
  cache: ResourceCache,
  material: KeyMaterial,
  apiKey: string,
): Promise<Serialised<AccountRow>> {
  const digest = digestApiKey(material, apiKey);
  const account = await cache.account(digest);
  if (account?.row.status !== 'active' || !digestsEqual(account.row.key_digest, digest)) {
    throw ApiError.of('invalidRequest');
  }
  return account;
}

import { randomBytes } from 'node:crypto';
import { KEY_NAME_MAX, type KeyScope } from '../domain/key-scope.js';
import { digestApiKey, encryptApiKey, generateApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { NamedKey, Store } from '../store/store.js';

/**
 * An account's named keys (beside its own key), shared by the CLI (`keys create|list|revoke`), the
 * admin API and the workspace's Settings page, so that all three make and end them alike.
 */

/** A named key just made: the only time its secret is given. */
export interface CreatedNamedKey {
  readonly id: string;
  readonly name: string;
  readonly scope: KeyScope;
  readonly key: string;
}

/** A named key's id: not secret, stable, told apart from a username or an item id at a glance. */
export function newNamedKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}

/**
 * Makes a named key for the account, stored as its own key is (a digest and a ciphertext);
 * undefined when there is no such account. A MarketBob account may have named keys too: they live
 * in this store only, and MarketBob's own key stays the account's `full` key.
 */
export async function createNamedKey(
  store: Store,
  material: KeyMaterial,
  username: string,
  name: string,
  scope: KeyScope,
): Promise<CreatedNamedKey | undefined> {
  const key = generateApiKey();
  const id = newNamedKeyId();
  const added = await store.addNamedKey({
    id,
    username,
    name,
    scope,
    key: { digest: digestApiKey(material, key), cipher: encryptApiKey(material, key) },
    createdAt: Date.now(),
  });
  return added ? { id, name, scope, key } : undefined;
}

/** The account's named keys, never their secrets; undefined when there is no such account. */
export async function listNamedKeys(store: Store, username: string): Promise<NamedKey[] | undefined> {
  if (!(await store.accountByUsername(username))) return undefined;
  return store.namedKeys(username);
}

/** What revoking a named key found. */
export type RevokeOutcome = 'revoked' | 'no-account' | 'no-key';

/** Ends the account's named key at once, everywhere. */
export async function revokeNamedKey(store: Store, username: string, id: string): Promise<RevokeOutcome> {
  if (await store.revokeNamedKey(username, id)) return 'revoked';
  return (await store.accountByUsername(username)) ? 'no-key' : 'no-account';
}

/** What bad input to a named key's creation is told (the admin API answers them with a 400, the CLI prints them). */
export const NAMED_KEY_PROBLEMS = {
  name: `name must be a text of 1 to ${KEY_NAME_MAX} characters, without control characters`,
  scope: 'scope must be "validate" or "full"',
} as const;

/** A named key as the admin API and `keys list` show it: never its secret. */
export function namedKeyBody(key: NamedKey) {
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    created_at: new Date(key.createdAt).toISOString(),
    last_used_at: key.lastUsedAt === undefined ? null : new Date(key.lastUsedAt).toISOString(),
  };
}

import { decryptApiKey, digestApiKey, encryptApiKey, generateApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';

/**
 * An account's key as its owner sees it, shared by the CLI (`keys show|rotate`) and the
 * workspace's Settings page, so both rotate the same way.
 */

/**
 * The account comes from a MarketBob marketplace, which owns its key: this service does not make
 * one for it (a key made here would work here and not in MarketBob, or be undone by the next
 * sync). The seller regenerates it in MarketBob; the bridge takes it within seconds.
 */
export class KeyManagedByMarketbobError extends Error {
  constructor(readonly username: string) {
    super(
      `the key of account ${JSON.stringify(username)} is MarketBob's: regenerate it in MarketBob, ` +
        'and the bridge takes the new key (and ends this one) within seconds',
    );
    this.name = 'KeyManagedByMarketbobError';
  }
}

/** The server secret in use is not the one the store's keys were sealed with. */
export class WrongSecretError extends Error {
  constructor(
    message = 'the stored key cannot be decrypted with this server secret: use the SECRET_KEY (or secret.key) ' +
      'the store was filled with, or give the account a new key with `keys rotate`',
  ) {
    super(message);
    this.name = 'WrongSecretError';
  }
}

/**
 * Throws WrongSecretError when the server secret cannot open the store's keys: one stored key,
 * decrypted and digested again (two cheap operations), at start. With another secret every key
 * would answer 401 while /readyz said ready; the server refuses to start instead. The message
 * names neither the secret nor any key.
 */
export async function checkSecretOpensStore(store: Store, material: KeyMaterial): Promise<void> {
  const account = await store.anyAccount();
  if (!account) return;
  let opens: boolean;
  try {
    opens = digestApiKey(material, decryptApiKey(material, account.key_cipher)) === account.key_digest;
  } catch {
    opens = false;
  }
  if (!opens) {
    throw new WrongSecretError(
      "the store's API keys cannot be decrypted with this server secret: start with the SECRET_KEY (or secret.key) " +
        'the store was filled with',
    );
  }
}

/**
 * The account's current key, decrypted for its owner; null when it has none (a MarketBob user
 * without one), undefined when there is no such account.
 */
export async function showKey(
  store: Store,
  material: KeyMaterial,
  username: string,
): Promise<string | null | undefined> {
  const account = await store.accountByUsername(username);
  if (!account) return undefined;
  if (account.key_cipher === '') return null;
  try {
    return decryptApiKey(material, account.key_cipher);
  } catch {
    throw new WrongSecretError();
  }
}

/** A new key, and until when the replaced one keeps working (undefined: it stopped at once). */
export interface RotatedKey {
  readonly key: string;
  readonly oldKeyWorksUntil: Date | undefined;
}

/**
 * Gives the account a new key; undefined when there is no such account; throws
 * KeyManagedByMarketbobError for an account whose key is MarketBob's. With `graceSeconds`
 * (config `keyRotationGraceSeconds`) the replaced key keeps working that long after now, and it
 * alone: a key an earlier rotation retired stops at once. With 0 (the default: `keys rotate --now`,
 * the admin API's `now`, the workspace's "end the old key now") no earlier key works any more.
 * Every instance's caches hear of it through the store's change signal, as of any key change.
 */
export async function rotateAccountKey(
  store: Store,
  material: KeyMaterial,
  username: string,
  graceSeconds = 0,
): Promise<RotatedKey | undefined> {
  if ((await store.marketbobUserId(username)) !== undefined) throw new KeyManagedByMarketbobError(username);
  const key = generateApiKey();
  const until = graceSeconds > 0 ? Date.now() + graceSeconds * 1000 : undefined;
  const replaced = await store.replaceAccountKey(
    username,
    { digest: digestApiKey(material, key), cipher: encryptApiKey(material, key) },
    until,
  );
  return replaced ? { key, oldKeyWorksUntil: until === undefined ? undefined : new Date(until) } : undefined;
}

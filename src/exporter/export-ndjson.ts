import { once } from 'node:events';
import { decryptApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import { signingKeyLine } from '../signing/signing-key-lines.js';
import type { StoreSnapshot } from '../store/snapshot.js';
import { accountLine, itemLine, purchaseLine } from './export-lines.js';

/** Rows read per query: memory stays small whatever the size of the store. */
const PAGE_ROWS = 2000;

/** Thrown when a stored key cannot be decrypted: the server secret is not the one it was stored with. */
export class KeyDecryptionError extends Error {
  constructor(username: string, options?: ErrorOptions) {
    super(
      `cannot decrypt the key of account ${JSON.stringify(username)}: ` +
        'SECRET_KEY (or secret.key) is not the secret the store was written with',
      options,
    );
    this.name = 'KeyDecryptionError';
  }
}

/** The key in clear; undefined for an account without a key (see `noKey`). */
function keyOf(keys: KeyMaterial, username: string, cipher: string): string | undefined {
  if (cipher === '') return undefined;
  try {
    return decryptApiKey(keys, cipher);
  } catch (error) {
    throw new KeyDecryptionError(username, { cause: error });
  }
}

/** How many lines of each type were written. */
export interface ExportCounts {
  accounts: number;
  items: number;
  purchases: number;
}

/**
 * Writes the whole snapshot to `out` as import NDJSON, in an order that imports back (accounts,
 * then items, then purchases), a page at a time by key, waiting whenever `out` asks to. Keys are
 * decrypted with `keys`, which must be the material they were encrypted with. Does not end `out`.
 */
export async function exportNdjson(
  snapshot: StoreSnapshot,
  keys: KeyMaterial,
  out: NodeJS.WritableStream,
): Promise<ExportCounts> {
  const counts: ExportCounts = { accounts: 0, items: 0, purchases: 0 };
  const write = async (lines: readonly unknown[]) => {
    if (lines.length === 0) return;
    let text = '';
    for (const line of lines) text += `${JSON.stringify(line)}\n`;
    if (!out.write(text)) await once(out, 'drain');
  };

  for (let page = await snapshot.accounts(undefined, PAGE_ROWS); page.length > 0; ) {
    const usernames = page.map((row) => row.username);
    const hashes = await snapshot.passwordHashes(usernames);
    const named = await snapshot.namedKeys(usernames);
    await write(
      page.map((row) =>
        accountLine(
          row,
          keyOf(keys, row.username, row.key_cipher),
          hashes.get(row.username),
          named.get(row.username)?.map((key) => ({
            id: key.id,
            name: key.name,
            scope: key.scope,
            key: keyOf(keys, row.username, key.cipher) as string,
            created_at: new Date(key.createdAt).toISOString(),
          })),
        ),
      ),
    );
    counts.accounts += page.length;
    page = await snapshot.accounts(page.at(-1)?.username, PAGE_ROWS);
  }
  for (let page = await snapshot.items(undefined, PAGE_ROWS); page.length > 0; ) {
    const limits = await snapshot.activationLimits(page.map((row) => row.id));
    await write(page.map((row) => itemLine(row, limits.get(row.id))));
    counts.items += page.length;
    page = await snapshot.items(page.at(-1)?.id, PAGE_ROWS);
  }
  for (let page = await snapshot.purchases(undefined, PAGE_ROWS); page.length > 0; ) {
    const activations = await snapshot.activations(page.map((row) => row.code_key));
    await write(page.map((row) => purchaseLine(row, activations.get(row.code_key))));
    counts.purchases += page.length;
    page = await snapshot.purchases(page.at(-1)?.code_key, PAGE_ROWS);
  }
  // Last: the deployment's signing key pairs, oldest first (an import adds them in this order).
  await write((await snapshot.signingKeys()).map((row) => signingKeyLine(row, keys)));
  return counts;
}

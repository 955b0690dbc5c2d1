import { createPrivateKey, createPublicKey } from 'node:crypto';
import { encryptApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { SigningKeyRow } from '../store/database.js';
import type { SigningKeyStore } from '../store/keys/signing-key-store.js';
import { jwkThumbprint, openPrivateKey } from './signing-keys.js';

/** The line type of a signing key pair in an export file. */
export const SIGNING_KEY_LINE_TYPE = 'signing_key';

/**
 * A signing key pair as an export line: its private key in clear (PKCS#8 DER, base64url), as
 * account lines carry their API key, so that a store restored elsewhere signs as this one did.
 */
export interface SigningKeyLine {
  readonly type: typeof SIGNING_KEY_LINE_TYPE;
  readonly kid: string;
  readonly private_key: string;
  readonly created_at: string;
}

export function signingKeyLine(row: SigningKeyRow, material: KeyMaterial): SigningKeyLine {
  return {
    type: SIGNING_KEY_LINE_TYPE,
    kid: row.kid,
    private_key: openPrivateKey(material, row.private_key),
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** True for a line that is a signing key's (read apart from the records' lines). */
export function isSigningKeyLine(text: string): boolean {
  return text.startsWith(`{"type":"${SIGNING_KEY_LINE_TYPE}"`);
}

/** A read signing key line: the pair to add (without its generation), or what is wrong (never the key). */
export type SigningKeyReading =
  | { readonly ok: true; readonly row: Omit<SigningKeyRow, 'generation'> }
  | { readonly ok: false; readonly message: string };

const FIELDS = new Set(['type', 'kid', 'private_key', 'created_at']);

export function readSigningKeyLine(text: string, material: KeyMaterial): SigningKeyReading {
  const bad = (problem: string): SigningKeyReading => ({ ok: false, message: `${SIGNING_KEY_LINE_TYPE}: ${problem}` });
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return bad('not valid JSON');
  }
  const unknown = Object.keys(value).filter((name) => !FIELDS.has(name));
  if (unknown.length > 0) return bad(`unknown field ${unknown.join(', ')}`);
  const { kid, private_key: privateKey, created_at: createdAt } = value;
  if (typeof kid !== 'string' || typeof privateKey !== 'string' || typeof createdAt !== 'string') {
    return bad('kid, private_key and created_at are required text');
  }
  const created = Date.parse(createdAt);
  if (Number.isNaN(created)) return bad('created_at must be an ISO 8601 timestamp');
  let x: string;
  try {
    const key = createPrivateKey({ key: Buffer.from(privateKey, 'base64url'), format: 'der', type: 'pkcs8' });
    if (key.asymmetricKeyType !== 'ed25519') return bad('private_key must be an Ed25519 key');
    x = createPublicKey(key).export({ format: 'jwk' }).x as string;
  } catch {
    return bad('private_key must be an Ed25519 key, PKCS#8 DER in base64url');
  }
  if (jwkThumbprint(x) !== kid) return bad('kid is not the key’s thumbprint');
  return {
    ok: true,
    row: { kid, public_key: x, private_key: encryptApiKey(material, privateKey), created_at: created },
  };
}

/**
 * Adds imported pairs on top of the store's, oldest first, so that the newest imported signs from
 * now on; a pair the store holds already (its kid) is left as it is. How many were added.
 */
export async function addImportedSigningKeys(
  store: SigningKeyStore,
  rows: readonly Omit<SigningKeyRow, 'generation'>[],
): Promise<number> {
  let added = 0;
  for (const row of [...rows].sort((a, b) => a.created_at - b.created_at)) {
    const held = await store.all();
    if (held.some((stored) => stored.kid === row.kid)) continue;
    if (await store.add({ ...row, generation: (held[0]?.generation ?? 0) + 1 })) added += 1;
  }
  return added;
}

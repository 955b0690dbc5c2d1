import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decryptApiKey, encryptApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { SigningKeyRow } from '../store/database.js';
import type { SigningKeyStore } from '../store/keys/signing-key-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How long past `tokenDays` a replaced key stays published: a running instance signs with the old
 * key until it has read the new one, and the sellers' clocks are not ours.
 */
const PUBLISHED_MARGIN_MS = DAY_MS;

/** An Ed25519 public key as a JWK (RFC 8037), with its id. */
export interface PublicJwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
  readonly kid: string;
  readonly use: 'sig';
  readonly alg: 'EdDSA';
}

/** The key pair that signs now. */
export interface SigningKey {
  readonly kid: string;
  readonly generation: number;
  readonly privateKey: KeyObject;
}

/** Thrown when a stored private key cannot be opened: the server secret is not the one it was sealed with. */
export class SigningKeyDecryptionError extends Error {
  constructor(options?: ErrorOptions) {
    super(
      'cannot decrypt the signing key: SECRET_KEY (or secret.key) is not the secret the store was written with',
      options,
    );
    this.name = 'SigningKeyDecryptionError';
  }
}

/** RFC 7638: the SHA-256 of the key's required members in lexical order, base64url. */
export function jwkThumbprint(x: string): string {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

/** A new key pair as the store keeps it (its private key sealed), not yet written. */
export function newSigningKeyRow(material: KeyMaterial, generation: number, now: number): SigningKeyRow {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x as string;
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url');
  return {
    generation,
    kid: jwkThumbprint(x),
    public_key: x,
    private_key: encryptApiKey(material, pkcs8),
    created_at: now,
  };
}

/** The stored private key in clear (PKCS#8 DER, base64url): only `export` asks for it. */
export function openPrivateKey(material: KeyMaterial, sealed: string): string {
  try {
    return decryptApiKey(material, sealed);
  } catch (error) {
    throw new SigningKeyDecryptionError({ cause: error });
  }
}

export function publicJwk(row: Pick<SigningKeyRow, 'kid' | 'public_key'>): PublicJwk {
  return { kty: 'OKP', crv: 'Ed25519', x: row.public_key, kid: row.kid, use: 'sig', alg: 'EdDSA' };
}

/** The keys to publish: the newest, and each replaced one until `tokenDays` (and a margin) after its replacement. */
export function publishedRows(rows: readonly SigningKeyRow[], tokenDays: number, now: number): SigningKeyRow[] {
  return rows.filter((_row, at) => {
    if (at === 0) return true;
    const replacedAt = (rows[at - 1] as SigningKeyRow).created_at;
    return replacedAt + tokenDays * DAY_MS + PUBLISHED_MARGIN_MS > now;
  });
}

/**
 * The first key pair, made when the store has none: written only if no other process wrote one
 * first, then read back, so that every instance and worker signs with the same one.
 */
async function storedRows(store: SigningKeyStore, material: KeyMaterial, now: number): Promise<SigningKeyRow[]> {
  const rows = await store.all();
  if (rows.length > 0) return rows;
  await store.add(newSigningKeyRow(material, 1, now));
  return store.all();
}

/** Makes a new key pair that signs from now on; the old ones stay published (see publishedRows). */
export async function rotateSigningKey(
  store: SigningKeyStore,
  material: KeyMaterial,
  now = Date.now(),
): Promise<SigningKeyRow> {
  for (;;) {
    const rows = await storedRows(store, material, now);
    const row = newSigningKeyRow(material, ((rows[0] as SigningKeyRow).generation ?? 0) + 1, now);
    // Another rotation that took the generation first: this one goes on top of it.
    if (await store.add(row)) return row;
  }
}

/**
 * The deployment's signing keys as the server holds them: the one that signs, and the public keys
 * to publish (`{base}/.well-known/jwks.json`). Read from the store at start (made there on first
 * start) and again by `refresh`, so that a rotation reaches every running instance.
 */
export class SigningKeys {
  private constructor(
    private readonly store: SigningKeyStore,
    private readonly material: KeyMaterial,
    private readonly tokenDays: number,
    private state: { readonly current: SigningKey; readonly jwks: Buffer; readonly published: readonly PublicJwk[] },
  ) {}

  static async open(store: SigningKeyStore, material: KeyMaterial, tokenDays: number): Promise<SigningKeys> {
    const rows = await storedRows(store, material, Date.now());
    return new SigningKeys(store, material, tokenDays, SigningKeys.stateOf(rows, material, tokenDays, undefined));
  }

  /** The key that signs now. */
  get current(): SigningKey {
    return this.state.current;
  }

  /** The public keys a verifier may meet, newest first. */
  get published(): readonly PublicJwk[] {
    return this.state.published;
  }

  /** `{"keys":[...]}` as served. */
  get jwks(): Buffer {
    return this.state.jwks;
  }

  /** Reads the keys again (a rotation made by another process). */
  async refresh(): Promise<void> {
    const rows = await storedRows(this.store, this.material, Date.now());
    this.state = SigningKeys.stateOf(rows, this.material, this.tokenDays, this.state.current);
  }

  private static stateOf(
    rows: readonly SigningKeyRow[],
    material: KeyMaterial,
    tokenDays: number,
    previous: SigningKey | undefined,
  ) {
    const newest = rows[0] as SigningKeyRow;
    // The private key is opened once per generation, not on every refresh.
    const current =
      previous?.kid === newest.kid
        ? previous
        : {
            kid: newest.kid,
            generation: newest.generation,
            privateKey: createPrivateKey({
              key: Buffer.from(openPrivateKey(material, newest.private_key), 'base64url'),
              format: 'der',
              type: 'pkcs8',
            }),
          };
    const published = publishedRows(rows, tokenDays, Date.now()).map(publicJwk);
    return { current, published, jwks: Buffer.from(JSON.stringify({ keys: published })) };
  }
}

/** A public key as node:crypto wants it (tests and tools verify with it). */
export function publicKeyObject(jwk: Pick<PublicJwk, 'x'>): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
}

import type { KeyScope } from '../../domain/key-scope.js';

/** A replaced key's digest that still opens its account until `expires_at` (ms since the epoch). */
export interface RetiredKeyRow {
  key_digest: string;
  username: string;
  expires_at: number;
}

/** A key the account had and lost, by its digest (see migration 0004). */
export interface ReplacedKeyRow {
  username: string;
  key_digest: string;
  replaced_at: number;
}

/** When the account's key whose digest is `key_digest` was made here or imported (see migrations 0005, 0013). */
export interface KeyDateRow {
  username: string;
  key_digest: string;
  created_at: number;
  origin: KeyOrigin;
}

/** How a dated key came: made by this service, or set by an import. */
export type KeyOrigin = 'made' | 'imported';

/** When an account's key was last used (see migration 0006). */
export interface KeyUsageRow {
  username: string;
  last_used_at: number;
}

/** A named key of an account (see migration 0014): a digest and a ciphertext, as the account's own key. */
export interface ApiKeyRow {
  id: string;
  username: string;
  name: string;
  scope: KeyScope;
  key_digest: string;
  key_cipher: string;
  created_at: number;
  /** When it was revoked (ms since the epoch); null while it works. */
  revoked_at: number | null;
}

/** When a named key was last used (see migration 0014). */
export interface ApiKeyUsageRow {
  key_id: string;
  last_used_at: number;
}

/** One generation of the deployment's signing key pair (see migration 0017). */
export interface SigningKeyRow {
  generation: number;
  /** The key's id: its RFC 7638 JWK thumbprint. */
  kid: string;
  /** The Ed25519 public key, raw, base64url (a JWK's `x`). */
  public_key: string;
  /** The private key (PKCS#8 DER), sealed with the server secret as the API keys are. */
  private_key: string;
  /** When it was made (ms since the epoch). */
  created_at: number;
}

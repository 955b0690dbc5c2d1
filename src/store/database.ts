import type { KeyScope } from '../domain/key-scope.js';
import type { AccountRow, ItemRecord, PurchaseRecord } from '../records/rows.js';
import type { ActivationRow, ItemActivationLimitRow } from './activations/activation-rows.js';
import type { WebhookDeliveryRow, WebhookEndpointRow, WebhookEventRow } from './webhooks/webhook-rows.js';

/** The tables as Kysely sees them. */
export interface Database {
  accounts: AccountRow;
  items: ItemRecord;
  purchases: PurchaseRecord;
  account_credentials: CredentialRow;
  workspace_sessions: SessionRow;
  retired_keys: RetiredKeyRow;
  replaced_keys: ReplacedKeyRow;
  key_usage: KeyUsageRow;
  key_dates: KeyDateRow;
  marketbob_users: MarketbobUserRow;
  marketbob_login_steps: MarketbobLoginStepRow;
  source_settings: SourceSettingRow;
  webhook_endpoints: WebhookEndpointRow;
  webhook_events: WebhookEventRow;
  webhook_deliveries: WebhookDeliveryRow;
  api_keys: ApiKeyRow;
  api_key_usage: ApiKeyUsageRow;
  item_activation_limits: ItemActivationLimitRow;
  activations: ActivationRow;
  signing_keys: SigningKeyRow;
}

/** An account's password hash, kept apart from `accounts` (see migration 0002). */
export interface CredentialRow {
  username: string;
  password_hash: string;
}

/** A workspace login session, found by a hash of its id. */
export interface SessionRow {
  id_hash: string;
  username: string;
  created_at: number;
  last_seen_at: number;
  /** The secret the session's CSRF tokens are made from (see migration 0003). */
  csrf_secret: string;
  /** A digest of the account's password hash when the session began: another hash ends it. */
  credential_tag: string;
  /** What the next page shows once (a Post/Redirect/Get's result), as JSON; null when nothing. */
  flash: string | null;
}

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

/** The MarketBob user an account comes from (see migration 0007). */
export interface MarketbobUserRow {
  username: string;
  user_id: number;
  /** SHA-256 (hex) of the MarketBob password hash last taken; '' when MarketBob had none. */
  password_digest: string;
  /** 1 when the MarketBob user is an author (migration 0012): only authors log in to the workspace. */
  is_author: number;
  /** MarketBob's two-factor secret as it stores it (migration 0012); '' when two-factor login is off. */
  two_factor: string;
}

/** The last time step a MarketBob user logged in with a code of (migration 0012). */
export interface MarketbobLoginStepRow {
  user_id: number;
  step: number;
}

/** One setting of the data's source, such as MarketBob's `api_enabled` (see migration 0010). */
export interface SourceSettingRow {
  name: string;
  value: string;
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

import type { AccountRow, ItemRecord, PurchaseRecord } from '../records/rows.js';
import type { CredentialRow } from './accounts/account-rows.js';
import type { ActivationRow, ItemActivationLimitRow } from './activations/activation-rows.js';
import type {
  ApiKeyRow,
  ApiKeyUsageRow,
  KeyDateRow,
  KeyUsageRow,
  ReplacedKeyRow,
  RetiredKeyRow,
  SigningKeyRow,
} from './keys/key-rows.js';
import type { SessionRow } from './sessions/session-rows.js';
import type { MarketbobLoginStepRow, MarketbobUserRow, SourceSettingRow } from './source/source-rows.js';
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

// Each aggregate keeps its rows beside its queries; the tables are named here, all in one place.
export type { CredentialRow } from './accounts/account-rows.js';
export type {
  ApiKeyRow,
  ApiKeyUsageRow,
  KeyDateRow,
  KeyOrigin,
  KeyUsageRow,
  ReplacedKeyRow,
  RetiredKeyRow,
  SigningKeyRow,
} from './keys/key-rows.js';
export type { SessionRow } from './sessions/session-rows.js';
export type { MarketbobLoginStepRow, MarketbobUserRow, SourceSettingRow } from './source/source-rows.js';

import type { LoginFactsRow } from './login-facts.js';
import type { MarketbobSettings } from './marketbob-settings.js';
import type { WallClock } from './wall-clock.js';

/**
 * MarketBob's rows as the bridge reads them (the columns the sync selects; see
 * marketbob-reader.ts), and what mapping them needs besides.
 */

/** What the mapping needs to know besides the row. */
export interface MappingContext {
  /** MarketBob's APP_URL or storage URL, without a trailing slash. */
  readonly mediaBaseUrl: string;
  readonly clock: WallClock;
  readonly settings: MarketbobSettings;
}

/** The login columns (`login-facts.ts`) ride along; the mapping itself does not read them. */
export interface UserRow extends LoginFactsRow {
  readonly id: number;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly username: string | null;
  readonly email: string | null;
  readonly password: string | null;
  readonly api_key: string | null;
  readonly balance: number | null;
  readonly avatar: string | null;
  readonly profile_cover: string | null;
  readonly profile_heading: string | null;
  readonly profile_description: string | null;
  readonly profile_contact_email: string | null;
  readonly profile_social_links: string | null;
  readonly status: number | null;
  readonly created_at: string | null;
  /** Read beside the row by the reader's queries. */
  readonly updated_at?: string | null;
}

export interface ItemRow {
  readonly id: number;
  readonly author_id: number;
  readonly name: string | null;
  readonly description: string | null;
  readonly category_name: string | null;
  readonly regular_buyer_fee: number | null;
  readonly extended_buyer_fee: number | null;
  readonly sub_category_name: string | null;
  readonly options: string | null;
  readonly version: string | null;
  readonly demo_link: string | null;
  readonly tags: string | null;
  readonly thumbnail: string | null;
  readonly preview_type: string | null;
  readonly preview_image: string | null;
  readonly preview_video: string | null;
  readonly preview_audio: string | null;
  readonly screenshots: string | null;
  readonly regular_price: number | null;
  readonly extended_price: number | null;
  /** Undefined when the column does not exist (a database before the validity-period migrations). */
  readonly validity_prices?: string | null;
  /** The item's row of `item_discounts` (NULL when it has none, undefined when the table does not exist). */
  readonly discount_status?: number | null;
  readonly discount_regular_price?: number | null;
  readonly discount_extended_price?: number | null;
  readonly is_supported: number | null;
  readonly status: number | null;
  readonly created_at: string | null;
  /** Read beside the row by the reader's queries. */
  readonly updated_at?: string | null;
}

export interface PurchaseRow {
  readonly id: number;
  readonly code: string | null;
  readonly item_id: number;
  readonly license_type: number | null;
  readonly support_expiry_at: string | null;
  readonly is_downloaded: number | null;
  readonly status: number | null;
  readonly created_at: string | null;
  readonly updated_at?: string | null;
  /** `sales.price` of the purchase's sale; null when the sale is missing. */
  readonly sale_price: number | null;
}

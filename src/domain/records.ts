/**
 * The records the store keeps, one per table, in the store's own terms: money in minor units
 * of the store currency, timestamps as ISO 8601 UTC text, lists as JSON text, flags as 0 or 1
 * (portable across SQLite and PostgreSQL, and bindable by every driver). Text with no value is ''.
 */

export type AccountStatus = 'active' | 'suspended';
export type ItemStatus = 'approved' | 'pending' | 'rejected' | 'removed';
export type PurchaseStatus = 'active' | 'refunded' | 'cancelled';
export type LicenseType = 'regular' | 'extended';
export type PreviewType = 'image' | 'video' | 'audio';

export interface AccountRecord {
  username: string;
  email: string;
  firstname: string;
  lastname: string;
  balance: number;
  status: AccountStatus;
  registered_at: string;
  heading: string;
  description: string;
  contact_email: string;
  /** JSON array of [network, link] pairs, sorted by network: the order responses use. */
  social_links: string;
  avatar: string;
  cover: string;
}

export interface AccountRow extends AccountRecord {
  key_digest: string;
  key_cipher: string;
}

export interface ItemRecord {
  id: number;
  /** The owner's username. */
  account: string;
  name: string;
  description: string;
  category: string;
  sub_category: string;
  /** JSON array of strings. */
  options: string;
  version: string;
  demo_link: string;
  /** JSON array of strings. */
  tags: string;
  preview_type: PreviewType;
  thumbnail: string;
  preview_image: string;
  preview_video: string;
  preview_audio: string;
  /** JSON array of URLs. */
  screenshots: string;
  price_regular: number;
  price_extended: number;
  supported: 0 | 1;
  status: ItemStatus;
  published_at: string;
}

export type ItemRow = ItemRecord;

/** What an item's JSON needs after its head (see serializeItemTail). */
export type ItemTailFields = Pick<ItemRow, 'price_regular' | 'price_extended' | 'published_at'>;

/** An item of a seller's list as the store reads it: its JSON head made by the store, and the fields of the tail. */
export interface ListedItem extends ItemTailFields {
  readonly id: number;
  /** Exactly serializeItemHead's text for this item. */
  readonly head: string;
}

export interface PurchaseRecord {
  /** The code in lower case: codes are unique regardless of letter case. */
  code_key: string;
  /** The code as it was last imported. */
  code: string;
  item_id: number;
  license_type: LicenseType;
  price: number;
  /** '' when the purchase has no support end date. */
  supported_until: string;
  downloaded: 0 | 1;
  status: PurchaseStatus;
  date: string;
}

export type PurchaseRow = PurchaseRecord;

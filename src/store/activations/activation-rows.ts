/** The activation tables' rows (see migration 0015). */

/** One instance a purchase code holds (see migration 0015). Times are ms since the epoch; 0 means never. */
export interface ActivationRow {
  id: string;
  /** The purchase code's lower-case key. */
  code_key: string;
  instance: string;
  created_at: number;
  last_validated_at: number;
}

/** An item's activation limit; an item without one has no limit. */
export interface ItemActivationLimitRow {
  item_id: number;
  activation_limit: number;
}

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

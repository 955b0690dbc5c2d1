/** An account's password hash, kept apart from `accounts` (see migration 0002). */
export interface CredentialRow {
  username: string;
  password_hash: string;
}

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

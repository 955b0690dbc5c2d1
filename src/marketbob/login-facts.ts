import { type RawBuilder, sql } from 'kysely';
import type { MarketbobLoginFacts } from '../store/store.js';

/** What MarketBob's `users` row says of logging in (the two-factor columns may be missing: NULL). */
export interface LoginFactsRow {
  readonly is_author?: number | string | null;
  readonly google2fa_status?: number | string | null;
  readonly google2fa_secret?: string | null;
}

/**
 * Kept in place of a secret when two-factor login is on and MarketBob holds no secret to check
 * codes against: such a seller is refused here (and told to log in on the marketplace). Not
 * base64, so never an encrypted secret.
 */
export const TWO_FACTOR_WITHOUT_SECRET = '!on-without-secret';

/** The columns of MarketBob's two-factor login (pragmarx/google2fa-laravel), read when both exist. */
export const TWO_FACTOR_COLUMNS = ['google2fa_status', 'google2fa_secret'] as const;

export const hasTwoFactorColumns = (columns: ReadonlyMap<string, ReadonlySet<string>>): boolean =>
  TWO_FACTOR_COLUMNS.every((column) => columns.get('users')?.has(column) === true);

/** The select list's login columns of `users u`: NULLs for the two-factor ones of a schema without them. */
export const loginFactColumns = (twoFactor: boolean): RawBuilder<unknown> =>
  twoFactor
    ? sql`u.is_author, u.google2fa_status, u.google2fa_secret`
    : sql`u.is_author, NULL AS google2fa_status, NULL AS google2fa_secret`;

/** Who may log in, from a MarketBob user's row: authors only; the secret kept exactly as stored. */
export function loginFactsOf(userId: number, row: LoginFactsRow): MarketbobLoginFacts {
  const on = Number(row.google2fa_status ?? 0) === 1;
  const secret = row.google2fa_secret?.trim() ?? '';
  return {
    userId,
    isAuthor: Number(row.is_author ?? 0) === 1,
    twoFactor: on ? secret || TWO_FACTOR_WITHOUT_SECRET : '',
  };
}

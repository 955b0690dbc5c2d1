import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as pragmarx/google2fa makes codes (MarketBob's two-factor login): SHA-1, 6 digits, 30-s steps. */
export const TOTP_PERIOD_SECONDS = 30;
const DIGITS = 6;
/** Steps of clock drift allowed either way: the code of the step before or after is taken too. */
const DRIFT_STEPS = 1;

/** What a seller types: six digits, spaces (as authenticator apps show `123 456`) aside. */
export const normalizeCode = (typed: string): string | undefined => {
  const code = typed.replace(/\s+/g, '');
  return /^\d{6}$/.test(code) ? code : undefined;
};

/**
 * The time step `code` belongs to, for the base32 `secret` at `nowMs`, within one step of drift;
 * undefined when it is no code of those steps (or the secret is not base32). The step is what
 * makes a code usable once: the caller records it (Store.claimLoginStep).
 */
export function codeStep(secret: string, code: string, nowMs: number): number | undefined {
  let totp: TOTP;
  try {
    totp = new TOTP({
      secret: Secret.fromBase32(secret.replace(/\s+/g, '').toUpperCase()),
      algorithm: 'SHA1',
      digits: DIGITS,
      period: TOTP_PERIOD_SECONDS,
    });
  } catch {
    return undefined;
  }
  const delta = totp.validate({ token: code, timestamp: nowMs, window: DRIFT_STEPS });
  return delta === null ? undefined : totp.counter({ timestamp: nowMs }) + delta;
}

/** Whether a base32 secret is one codes can be made from (a decrypted secret is checked before the code page). */
export function isUsableSecret(secret: string): boolean {
  try {
    return Secret.fromBase32(secret.replace(/\s+/g, '').toUpperCase()).bytes.length > 0;
  } catch {
    return false;
  }
}

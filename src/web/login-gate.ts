import { type AppKey, decryptLaravelString } from '../marketbob/laravel-encryption.js';
import { TWO_FACTOR_WITHOUT_SECRET } from '../marketbob/login-facts.js';
import type { MarketbobLoginFacts } from '../store/store.js';
import { isUsableSecret } from './two-factor-codes.js';

/**
 * What a right password leads to:
 * - `open`: the session starts (an account not from MarketBob, or a MarketBob author without
 *   two-factor login);
 * - `notAuthor`: a MarketBob buyer, who has no seller workspace: answered as a wrong password;
 * - `code`: the seller turned on two-factor login in MarketBob; the code is asked for next;
 * - `marketplaceOnly`: two-factor login is on but its secret cannot be read here (no APP_KEY
 *   configured, another key, no secret stored): refused, never let in on the password alone.
 */
export type LoginGate =
  | { readonly kind: 'open' }
  | { readonly kind: 'notAuthor' }
  | { readonly kind: 'code'; readonly userId: number; readonly secret: string }
  | { readonly kind: 'marketplaceOnly'; readonly reason: string };

/** The gate for an account's MarketBob login facts (undefined: not from MarketBob). */
export function loginGate(facts: MarketbobLoginFacts | undefined, appKey: AppKey | undefined): LoginGate {
  if (facts === undefined) return { kind: 'open' };
  if (!facts.isAuthor) return { kind: 'notAuthor' };
  if (facts.twoFactor === '') return { kind: 'open' };
  if (facts.twoFactor === TWO_FACTOR_WITHOUT_SECRET) {
    return { kind: 'marketplaceOnly', reason: 'two-factor login is on in MarketBob with no secret stored' };
  }
  if (appKey === undefined) {
    return { kind: 'marketplaceOnly', reason: 'no MarketBob APP_KEY configured (marketbob.appKey)' };
  }
  let secret: string;
  try {
    secret = decryptLaravelString(facts.twoFactor, appKey);
  } catch (error) {
    // The error names the cause only (never the payload or the key).
    return { kind: 'marketplaceOnly', reason: (error as Error).message };
  }
  if (!isUsableSecret(secret)) return { kind: 'marketplaceOnly', reason: 'the decrypted secret is not base32' };
  return { kind: 'code', userId: facts.userId, secret };
}

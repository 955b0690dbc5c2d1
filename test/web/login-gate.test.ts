import { describe, expect, it } from 'vitest';
import { parseAppKey } from '../../src/marketbob/laravel-encryption.js';
import { loginFactsOf, TWO_FACTOR_WITHOUT_SECRET } from '../../src/marketbob/login-facts.js';
import { loginGate } from '../../src/web/login-gate.js';
import { laravelEncrypt, newAppKey } from '../marketbob/laravel-payload.js';

const SECRET = 'JBSWY3DPEHPK3PXP';

describe('who may log in, from MarketBob user rows', () => {
  it('keeps is_author and the two-factor secret as stored; a marker when on without a secret', () => {
    expect(loginFactsOf(7, { is_author: 1 })).toEqual({ userId: 7, isAuthor: true, twoFactor: '' });
    expect(loginFactsOf(7, { is_author: 0, google2fa_status: 0, google2fa_secret: 'x' })).toEqual({
      userId: 7,
      isAuthor: false,
      twoFactor: '',
    });
    expect(loginFactsOf(7, { is_author: '1', google2fa_status: 1, google2fa_secret: 'eyJpdiI6' })).toEqual({
      userId: 7,
      isAuthor: true,
      twoFactor: 'eyJpdiI6',
    });
    for (const secret of [null, '', '  ']) {
      expect(loginFactsOf(7, { is_author: 1, google2fa_status: 1, google2fa_secret: secret }).twoFactor).toBe(
        TWO_FACTOR_WITHOUT_SECRET,
      );
    }
    // A schema without the two-factor columns reads them as NULL.
    expect(loginFactsOf(7, { is_author: 1, google2fa_status: null, google2fa_secret: null }).twoFactor).toBe('');
  });

  it('gates: open, a buyer, a code to ask for, or the marketplace only', () => {
    const appKey = newAppKey();
    const key = parseAppKey(appKey);
    const stored = laravelEncrypt(SECRET, appKey);
    expect(loginGate(undefined, key)).toEqual({ kind: 'open' });
    expect(loginGate({ userId: 1, isAuthor: true, twoFactor: '' }, key)).toEqual({ kind: 'open' });
    expect(loginGate({ userId: 1, isAuthor: false, twoFactor: stored }, key)).toEqual({ kind: 'notAuthor' });
    expect(loginGate({ userId: 1, isAuthor: true, twoFactor: stored }, key)).toEqual({
      kind: 'code',
      userId: 1,
      secret: SECRET,
    });
    expect(loginGate({ userId: 1, isAuthor: true, twoFactor: stored }, undefined)).toMatchObject({
      kind: 'marketplaceOnly',
    });
    expect(loginGate({ userId: 1, isAuthor: true, twoFactor: stored }, parseAppKey(newAppKey()))).toEqual({
      kind: 'marketplaceOnly',
      reason: 'cannot decrypt the Laravel payload: the MAC does not match (another APP_KEY?)',
    });
    expect(loginGate({ userId: 1, isAuthor: true, twoFactor: TWO_FACTOR_WITHOUT_SECRET }, key)).toMatchObject({
      kind: 'marketplaceOnly',
    });
    expect(loginGate({ userId: 1, isAuthor: true, twoFactor: laravelEncrypt('not base32!', appKey) }, key)).toEqual({
      kind: 'marketplaceOnly',
      reason: 'the decrypted secret is not base32',
    });
  });
});

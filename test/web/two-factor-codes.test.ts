import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { codeStep, isUsableSecret, normalizeCode } from '../../src/web/two-factor-codes.js';

const SECRET = 'JBSWY3DPEHPK3PXP';
const totp = new TOTP({ secret: Secret.fromBase32(SECRET), algorithm: 'SHA1', digits: 6, period: 30 });
/** The start of a 30-s step, so that the steps around it are exact. */
const NOW = 1_790_000_010_000 - (1_790_000_010_000 % 30_000) + 12_000;
const step = Math.floor(NOW / 30_000);
const codeAt = (ms: number) => totp.generate({ timestamp: ms });

describe('two-factor codes (RFC 6238, the pragmarx/google2fa defaults)', () => {
  it("matches RFC 6238's SHA-1 test vector, cut to six digits", () => {
    // RFC 6238 appendix B: secret "12345678901234567890", T = 59 s: 94287082 (eight digits).
    const rfc = Secret.fromUTF8('12345678901234567890').base32;
    expect(codeStep(rfc, '287082', 59_000)).toBe(1);
    expect(codeStep(rfc, '287083', 59_000)).toBeUndefined();
  });

  it("takes the current step's code and one step of drift either way, and says which step", () => {
    expect(codeStep(SECRET, codeAt(NOW), NOW)).toBe(step);
    expect(codeStep(SECRET, codeAt(NOW - 30_000), NOW)).toBe(step - 1);
    expect(codeStep(SECRET, codeAt(NOW + 30_000), NOW)).toBe(step + 1);
    expect(codeStep(SECRET, codeAt(NOW - 60_000), NOW)).toBeUndefined();
    expect(codeStep(SECRET, codeAt(NOW + 60_000), NOW)).toBeUndefined();
    const wrong = String((Number(codeAt(NOW)) + 1) % 1_000_000).padStart(6, '0');
    expect(codeStep(SECRET, wrong, NOW)).toBeUndefined();
    // Lower case and spaces in a stored secret are what some apps write.
    expect(codeStep('jbsw y3dp ehpk 3pxp', codeAt(NOW), NOW)).toBe(step);
  });

  it('reads six digits, spaces aside; a secret that is not base32 matches nothing', () => {
    expect(normalizeCode(' 123 456 ')).toBe('123456');
    expect(normalizeCode('12345')).toBeUndefined();
    expect(normalizeCode('12345a')).toBeUndefined();
    expect(normalizeCode('1234567')).toBeUndefined();
    expect(isUsableSecret(SECRET)).toBe(true);
    expect(isUsableSecret('')).toBe(false);
    expect(isUsableSecret('not base32!')).toBe(false);
    expect(codeStep('not base32!', '123456', NOW)).toBeUndefined();
  });
});

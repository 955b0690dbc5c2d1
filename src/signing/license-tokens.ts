import { sign } from 'node:crypto';
import type { SigningKeys } from './signing-keys.js';

const DAY_SECONDS = 24 * 60 * 60;

/** What a license token says, besides when it was made and until when it holds. */
export interface LicenseFacts {
  /** The variant's base URL the token was asked of. */
  readonly issuer: string;
  /** The purchase code as stored. */
  readonly purchaseCode: string;
  readonly itemId: number;
  /** `Regular` or `Extended`. */
  readonly licenseType: string;
  /** The installation the seller's software named, when it named one. */
  readonly instance: string | undefined;
}

/** A license token and when it expires (ms since the epoch). */
export interface IssuedLicense {
  readonly token: string;
  readonly expiresAt: number;
}

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/**
 * Offline license tokens: JWS compact serialisation (RFC 7515), EdDSA with the deployment's
 * current signing key, `kid` in the header, so that the seller's software can check a purchase
 * with the published keys and no call to us, until `exp`.
 */
export class LicenseIssuer {
  constructor(
    private readonly keys: SigningKeys,
    private readonly tokenDays: number,
    private readonly now: () => number = Date.now,
  ) {}

  issue(facts: LicenseFacts): IssuedLicense {
    const { kid, privateKey } = this.keys.current;
    const iat = Math.floor(this.now() / 1000);
    const exp = iat + this.tokenDays * DAY_SECONDS;
    const header = base64url(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid }));
    const claims = base64url(
      JSON.stringify({
        iss: facts.issuer,
        iat,
        exp,
        purchase_code: facts.purchaseCode,
        item_id: facts.itemId,
        license_type: facts.licenseType,
        ...(facts.instance === undefined ? {} : { instance: facts.instance }),
      }),
    );
    const signingInput = `${header}.${claims}`;
    const signature = sign(null, Buffer.from(signingInput), privateKey).toString('base64url');
    return { token: `${signingInput}.${signature}`, expiresAt: exp * 1000 };
  }
}

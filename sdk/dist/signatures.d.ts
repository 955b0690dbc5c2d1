/**
 * Checks what the marketplace signs, so that software that believes an answer cannot be fooled by
 * a server that only pretends to be it: answers (RFC 9421 HTTP Message Signatures, Ed25519, with
 * an RFC 9530 `Content-Digest`) and offline license tokens (JWS, EdDSA). The keys are the
 * deployment's, published at `{base}/.well-known/jwks.json`. Web Crypto only, so it runs wherever
 * the client does.
 */
/** An answer or a token that must not be believed: say why. */
export declare class SignatureVerificationError extends Error {
    constructor(message: string);
}
/** One public key of the set (an Ed25519 OKP JWK). */
export interface SigningJwk {
    readonly kty: string;
    readonly crv: string;
    readonly x: string;
    readonly kid: string;
}
/** The set at `{base}/.well-known/jwks.json`. */
export interface SigningKeySet {
    readonly keys: readonly SigningJwk[];
}
/** Headers as a fetch `Headers`, or as a plain object (Node's `response.headers`). */
export type SignedHeaders = {
    get(name: string): string | null;
} | Readonly<Record<string, string | readonly string[] | number | undefined>>;
export interface VerifyAnswerInput {
    /** The keys to trust: fetched once from a server you trust (see fetchSigningKeys), or shipped with your software. */
    readonly keys: SigningKeySet;
    /** The request's method. */
    readonly method: string;
    /** The request's URL as sent (absolute, or its path and query). */
    readonly url: string;
    /** The nonce the request sent in `Signature-Nonce`, if it sent one: the answer must be bound to it. */
    readonly nonce?: string;
    readonly status: number;
    readonly headers: SignedHeaders;
    /** The body exactly as received. */
    readonly body: string | Uint8Array;
    /** How old the signature may be, in seconds (300 when left out). */
    readonly maxAgeSeconds?: number;
    /** Now, in ms since the epoch (tests). */
    readonly now?: number;
}
/** What a license token says. */
export interface LicenseClaims {
    /** The base URL the token was asked of. */
    readonly iss: string;
    /** When it was made and until when it holds, in seconds since the epoch. */
    readonly iat: number;
    readonly exp: number;
    readonly purchase_code: string;
    readonly item_id: number;
    readonly license_type: 'Regular' | 'Extended';
    /** The installation it was asked for, when one was named. */
    readonly instance?: string;
}
export interface VerifyLicenseOptions {
    readonly keys: SigningKeySet;
    /** The base URL the token must come from (its `iss`), when you want it checked. */
    readonly issuer?: string;
    /** The installation the token must be for (its `instance`), when you want it checked. */
    readonly instance?: string;
    /** Now, in ms since the epoch (tests). */
    readonly now?: number;
}
/**
 * Checks that an answer is the marketplace's own, to this very request: its body matches
 * `Content-Digest`, and the signature (by a trusted key, made within `maxAgeSeconds`) covers its
 * status, that digest, the request's method, path and query, and the nonce when one was sent.
 * Resolves when it is; throws SignatureVerificationError otherwise.
 */
export declare function verifyAnswer(input: VerifyAnswerInput): Promise<void>;
/**
 * Checks an offline license token (as `license()` gets it) with the trusted keys, offline: its
 * signature, that it has not expired, and, when asked, its issuer and instance. Returns its claims;
 * throws SignatureVerificationError otherwise.
 */
export declare function verifyLicense(token: string, options: VerifyLicenseOptions): Promise<LicenseClaims>;

import { createHash, sign } from 'node:crypto';
import type { SigningKeys } from './signing-keys.js';

/** The request header whose value a client may send to have it bound into the answer's signature. */
export const NONCE_HEADER = 'signature-nonce';

/** The signature's label in `Signature-Input` and `Signature`. */
export const SIGNATURE_LABEL = 'sig1';

/**
 * The nonce a client may send: visible ASCII without `"` and `\`, so that it is an RFC 8941 string
 * as it stands (the signature parameters carry it quoted), at most 255 characters.
 */
const NONCE = /^[\x21\x23-\x5b\x5d-\x7e]([\x20\x21\x23-\x5b\x5d-\x7e]{0,253}[\x21\x23-\x5b\x5d-\x7e])?$/;

export function isValidNonce(nonce: string): boolean {
  return NONCE.test(nonce);
}

/** The covered components, without and with the client's nonce (RFC 9421 2.4: request parts carry `;req`). */
const COMPONENTS = '"@status" "content-digest" "@method";req "@path";req "@query";req';
const COMPONENTS_WITH_NONCE = `${COMPONENTS} "${NONCE_HEADER}";req`;

/** The three headers that sign an answer. */
export interface AnswerSignature {
  /** `Content-Digest` (RFC 9530): `sha-256=:<base64>:` of the body. */
  readonly contentDigest: string;
  readonly signatureInput: string;
  readonly signature: string;
}

/**
 * A remembered signature, as small as it can be kept (the working set holds tens of thousands):
 * the digest is in its key already, and the signature's parameters are the same string for every
 * answer signed in the same second with the same key.
 */
interface Signed {
  readonly created: number;
  /** The second from which it is made again (see REUSE_SECONDS). */
  readonly renewAt: number;
  readonly kid: string;
  readonly signatureInput: string;
  readonly signature: string;
}

/**
 * An answer body signed before, known by the Buffer itself: a cached answer (a validation's, an
 * item's) is sent as the same Buffer again and again, and its digest and last signature are
 * found without hashing its bytes or building the text that keys `remembered`. A Buffer handed to
 * `sign` is an answer's body, never written again.
 */
interface KnownBody {
  readonly contentDigest: string;
  /** The last signature made without a nonce for this body, and the status, method and target it covers. */
  last: { readonly answer: string; readonly signed: Signed } | undefined;
}

/**
 * How many distinct answers (status, method, target, body digest) a signer remembers its last
 * signature of: the hot path's working set (sellers' software asks about the same codes again and
 * again) fits. The body is remembered by its digest only.
 */
const REMEMBERED_ANSWERS = 32_768;

/**
 * How long a remembered signature is given again for the same answer, at most. Its `created` says
 * when it was made, so a verifier's age check still holds; an answer without a nonce is not bound
 * to one request anyway (the same request gets the same answer), which is what a nonce is for.
 * Each is made again at a moment drawn between REUSE_SECONDS / 2 and REUSE_SECONDS after it was
 * made: answers first signed together (thousands of codes in the minute after a start) would
 * otherwise all be signed again in the same second a minute later, and hold every request then.
 */
const REUSE_SECONDS = 60;

/** When a signature made at `created` is made again: a second drawn in its second half-minute (see REUSE_SECONDS). */
function renewalOf(created: number): number {
  return created + REUSE_SECONDS / 2 + Math.floor(Math.random() * (REUSE_SECONDS / 2));
}

export function contentDigestOf(body: Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/**
 * Signs the API's answers (RFC 9421, Ed25519): one signature per answer over its status, its
 * body's digest, the request's method, path and query, and the client's nonce when it sent one;
 * `created`, `keyid` and `alg` in the parameters. An answer without a nonce that repeats within
 * REUSE_SECONDS at most (same status, method, target and body bytes, same key) gets the signature
 * made for the first: validating the same codes over and over is the hot path, and signing is its
 * costliest step.
 */
export class AnswerSigner {
  private readonly remembered = new Map<string, Signed>();
  /** By the body's Buffer, as long as whoever sends it keeps it (see KnownBody). */
  private readonly bodies = new WeakMap<Buffer, KnownBody>();
  /** The last nonce-free `Signature-Input`, shared by the answers signed with it. */
  private lastInput: { readonly created: number; readonly kid: string; readonly value: string } | undefined;

  constructor(
    private readonly keys: Pick<SigningKeys, 'current'>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The headers for an answer. `path` is the request's path as sent, `query` what followed its
   * `?` ('' when none), `nonce` the client's (already checked with isValidNonce).
   */
  sign(
    status: number,
    method: string,
    path: string,
    query: string,
    nonce: string | undefined,
    body: Buffer,
  ): AnswerSignature {
    const created = Math.floor(this.now() / 1000);
    const { kid, privateKey } = this.keys.current;
    let known = this.bodies.get(body);
    if (known === undefined) {
      known = { contentDigest: contentDigestOf(body), last: undefined };
      this.bodies.set(body, known);
    }
    const { contentDigest } = known;
    const answer = nonce === undefined ? `${status} ${method} ${path}?${query}` : undefined;
    if (answer !== undefined) {
      let last = known.last?.answer === answer ? known.last.signed : undefined;
      if (last === undefined) {
        // Another Buffer with the same bytes, signed for the same answer.
        last = this.remembered.get(`${answer} ${contentDigest}`);
        if (last !== undefined) known.last = { answer, signed: last };
      }
      if (last !== undefined && created < last.renewAt && last.kid === kid) {
        return { contentDigest, signatureInput: last.signatureInput, signature: last.signature };
      }
    }

    const params =
      nonce === undefined
        ? `(${COMPONENTS});created=${created};keyid="${kid}";alg="ed25519"`
        : `(${COMPONENTS_WITH_NONCE});created=${created};keyid="${kid}";alg="ed25519";nonce="${nonce}"`;
    let base =
      `"@status": ${status}\n"content-digest": ${contentDigest}\n"@method";req: ${method}\n` +
      `"@path";req: ${path}\n"@query";req: ?${query}\n`;
    if (nonce !== undefined) base += `"${NONCE_HEADER}";req: ${nonce}\n`;
    base += `"@signature-params": ${params}`;
    const signature = `${SIGNATURE_LABEL}=:${sign(null, Buffer.from(base), privateKey).toString('base64')}:`;
    if (answer === undefined) return { contentDigest, signatureInput: `${SIGNATURE_LABEL}=${params}`, signature };
    // A validation's code is in its body, not its target: the body's digest is part of the key.
    const key = `${answer} ${contentDigest}`;
    const input = this.lastInput;
    const signatureInput =
      input !== undefined && input.created === created && input.kid === kid
        ? input.value
        : `${SIGNATURE_LABEL}=${params}`;
    this.lastInput = { created, kid, value: signatureInput };
    if (this.remembered.size >= REMEMBERED_ANSWERS && !this.remembered.has(key)) this.remembered.clear();
    const signed = { created, renewAt: renewalOf(created), kid, signatureInput, signature };
    this.remembered.set(key, signed);
    known.last = { answer, signed };
    return { contentDigest, signatureInput, signature };
  }
}

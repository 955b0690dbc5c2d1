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
 * A remembered signature, as small as it can be kept (the working set holds tens of thousands, and
 * each is made again every minute): the digest is in its key already, its answer is one of the
 * signer's kept answers (see AnswerSigner.answerOf), and the signature's parameters are the same
 * string for every answer signed in the same second with the same key.
 */
interface Signed {
  readonly answer: Answer;
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
  /**
   * The last signature made without a nonce for this body. Its answer's parts are compared one by
   * one when the body is asked for again: a target that names an item or a page is one of
   * thousands, and building its text for each request to find it again cost more than the rest
   * of the lookup.
   */
  signed: Signed | undefined;
  /** Whether its renewal is queued. */
  renewal: boolean;
  /**
   * How many more times its signature is renewed ahead of its requests: QUIET_RENEWALS again
   * with each request given its remembered signature, one less with each renewal made for none.
   */
  quietRenewals: number;
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
 */
const REUSE_SECONDS = 60;

/**
 * When a signature made at `created` is renewed: a second drawn in its second half-minute. From
 * then until REUSE_SECONDS it is still given, and a new one is made beside the requests (see
 * AnswerSigner). Drawn, so that answers first signed together (thousands of codes in the minute
 * after a start) do not all fall due in the same second.
 */
function renewalOf(created: number): number {
  return created + REUSE_SECONDS / 2 + Math.floor(Math.random() * (REUSE_SECONDS / 2));
}

/** Answers (status, method, target) kept, at most (see AnswerSigner.answerOf). */
const KEPT_ANSWERS = 4_096;

/** Renewals being signed at once, at most: as many as libuv's thread pool has threads by default. */
const RENEWALS_IN_FLIGHT = 4;

/**
 * How many renewals in a row an answer gets ahead of its requests once they stop. An answer asked
 * again while its signature held is renewed when that signature falls due, whether or not a
 * request comes: two in a row keep its signature valid for at least 90 s after its last request
 * (about two minutes on average), so that software pausing for a minute, or a client retrying
 * after a quiet spell, finds its answers signed instead of waiting behind thousands of signatures
 * made in front of it. Then it stops: a quiet server signs nothing more.
 */
const QUIET_RENEWALS = 2;

/** Signatures whose renewal is looked at ahead of requests, at most; past it, they wait for their next request. */
const CHECKS_KEPT = REMEMBERED_ANSWERS;

/** How often due signatures are looked at (see AnswerSigner.renewDue). */
const CHECK_EVERY_MS = 1000;

/** What an answer's signature covers of the request besides its nonce. */
interface AnswerTarget {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly query: string;
}

/** An answer's target with its text (status, method, path and query), which keys `remembered` with the body's digest. */
interface Answer extends AnswerTarget {
  readonly text: string;
}

/**
 * The signatures that fall due in one second, each beside the body it was made for (two arrays,
 * not an object per signature: one is made for every signature, every minute).
 */
interface DueChecks {
  readonly bodies: KnownBody[];
  readonly signed: Signed[];
}

/** The signature's parameters and RFC 9421's signature base for the answer. */
function signatureBase(
  created: number,
  kid: string,
  { status, method, path, query }: AnswerTarget,
  nonce: string | undefined,
  contentDigest: string,
): { readonly params: string; readonly base: Buffer } {
  const params =
    nonce === undefined
      ? `(${COMPONENTS});created=${created};keyid="${kid}";alg="ed25519"`
      : `(${COMPONENTS_WITH_NONCE});created=${created};keyid="${kid}";alg="ed25519";nonce="${nonce}"`;
  let base =
    `"@status": ${status}\n"content-digest": ${contentDigest}\n"@method";req: ${method}\n` +
    `"@path";req: ${path}\n"@query";req: ?${query}\n`;
  if (nonce !== undefined) base += `"${NONCE_HEADER}";req: ${nonce}\n`;
  base += `"@signature-params": ${params}`;
  return { params, base: Buffer.from(base) };
}

/** The `Signature` header's value for Ed25519's bytes. */
function signatureOf(bytes: Buffer): string {
  return `${SIGNATURE_LABEL}=:${bytes.toString('base64')}:`;
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
 * costliest step. A signature due for renewal (see renewalOf) is still given while a new one is
 * made on libuv's thread pool, beside the requests: after a quiet spell, every answer asked again
 * would otherwise be signed in front of its request at once (a second of signing for 20,000
 * codes, on the thread answering requests). An answer asked again while its signature held is
 * renewed when that signature falls due even if no request comes (see QUIET_RENEWALS), so that a
 * quiet minute does not leave it to be signed in front of the next request. Only a signature past
 * REUSE_SECONDS, or made with a replaced key, holds its request while it is made again.
 */
export class AnswerSigner {
  private readonly remembered = new Map<string, Signed>();
  /** By the body's Buffer, as long as whoever sends it keeps it (see KnownBody). */
  private readonly bodies = new WeakMap<Buffer, KnownBody>();
  /** The last nonce-free `Signature-Input`, shared by the answers signed with it. */
  private lastInput: { readonly created: number; readonly kid: string; readonly value: string } | undefined;
  /** The bodies whose signatures are to be renewed, for the answer of their last one. */
  private readonly renewals: KnownBody[] = [];
  /** How many of `renewals` are taken: the queue starts there. */
  private done = 0;
  /** Renewals being signed on the thread pool. */
  private inFlight = 0;
  private readonly whenRenewed: (() => void)[] = [];
  /**
   * The answers (status, method, target and their text) as first made, so that the thousands of
   * signatures made for the same target (every validation's) hold one copy of it, not one each.
   */
  private readonly answers = new Map<string, Answer>();
  /** The signatures made, by the second they fall due (see renewDue). */
  private readonly checks = new Map<number, DueChecks>();
  private checksKept = 0;
  private checkTimer: NodeJS.Timeout | undefined;
  private closed = false;

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
    let known = this.bodies.get(body);
    if (known === undefined) {
      known = { contentDigest: contentDigestOf(body), signed: undefined, renewal: false, quietRenewals: 0 };
      this.bodies.set(body, known);
    }
    const { contentDigest } = known;
    if (nonce !== undefined) {
      return { contentDigest, ...this.signedWithNonce(created, { status, method, path, query }, nonce, contentDigest) };
    }
    let last = known.signed;
    let answer = last?.answer;
    if (
      answer === undefined ||
      answer.status !== status ||
      answer.method !== method ||
      answer.path !== path ||
      answer.query !== query
    ) {
      answer = this.answerOf(status, method, path, query);
      // Another Buffer with the same bytes, signed for the same answer.
      last = this.remembered.get(`${answer.text} ${contentDigest}`);
      if (last !== undefined) {
        known.signed = last;
        // Renewed ahead of requests as this Buffer, which is the one asked for from now on.
        this.checkWhenDue(known, last);
      }
    }
    if (last !== undefined && created - last.created < REUSE_SECONDS && last.kid === this.keys.current.kid) {
      known.quietRenewals = QUIET_RENEWALS;
      // Once queued, the requests until its renewal is made build nothing for it.
      if (created >= last.renewAt && !known.renewal) this.renewLater(known);
      return { contentDigest, signatureInput: last.signatureInput, signature: last.signature };
    }
    return { contentDigest, ...this.remember(created, known, answer) };
  }

  /** The answer for a status, method and target, the same object each time it is asked for again. */
  private answerOf(status: number, method: string, path: string, query: string): Answer {
    const text = `${status} ${method} ${path}?${query}`;
    const kept = this.answers.get(text);
    if (kept !== undefined) return kept;
    // Targets naming an item or a page are many: past the bound, they start again.
    if (this.answers.size >= KEPT_ANSWERS) this.answers.clear();
    const answer = { status, method, path, query, text };
    this.answers.set(text, answer);
    return answer;
  }

  /** Signs the answer now, and remembers the signature for it. */
  private remember(created: number, known: KnownBody, answer: Answer) {
    const { kid, privateKey } = this.keys.current;
    const { params, base } = signatureBase(created, kid, answer, undefined, known.contentDigest);
    const signature = signatureOf(sign(null, base, privateKey));
    return this.keep(created, kid, params, signature, known, answer);
  }

  /** Remembers a signature made for the answer (see `remembered`, KnownBody). */
  private keep(created: number, kid: string, params: string, signature: string, known: KnownBody, answer: Answer) {
    const input = this.lastInput;
    const signatureInput =
      input !== undefined && input.created === created && input.kid === kid
        ? input.value
        : `${SIGNATURE_LABEL}=${params}`;
    this.lastInput = { created, kid, value: signatureInput };
    // A validation's code is in its body, not its target: the body's digest is part of the key.
    const key = `${answer.text} ${known.contentDigest}`;
    if (this.remembered.size >= REMEMBERED_ANSWERS && !this.remembered.has(key)) this.remembered.clear();
    const signed = { answer, created, renewAt: renewalOf(created), kid, signatureInput, signature };
    this.remembered.set(key, signed);
    known.signed = signed;
    this.checkWhenDue(known, signed);
    return { signatureInput, signature };
  }

  /** Looks at the body's signature again when it falls due (see renewDue). */
  private checkWhenDue(known: KnownBody, signed: Signed): void {
    if (this.closed || this.checksKept >= CHECKS_KEPT) return;
    const second = signed.renewAt;
    const due = this.checks.get(second);
    if (due === undefined) this.checks.set(second, { bodies: [known], signed: [signed] });
    else {
      due.bodies.push(known);
      due.signed.push(signed);
    }
    this.checksKept++;
    if (this.checkTimer === undefined) {
      this.checkTimer = setInterval(() => this.renewDue(), CHECK_EVERY_MS);
      // Nothing is lost when the process ends without it: an answer is signed when asked anyway.
      this.checkTimer.unref();
    }
  }

  /**
   * Queues the renewal of every signature due by now that is still its answer's and whose answer
   * was asked for since (or, QUIET_RENEWALS times in a row, before): see QUIET_RENEWALS. Called
   * every second while signatures are waiting to fall due.
   */
  renewDue(): void {
    const now = Math.floor(this.now() / 1000);
    for (const [second, due] of this.checks) {
      if (second > now) continue;
      this.checks.delete(second);
      const { bodies, signed } = due;
      this.checksKept -= bodies.length;
      for (let at = 0; at < bodies.length; at++) {
        const known = bodies[at] as KnownBody;
        // Renewed or replaced since, asked for by nobody lately, or queued by a request already.
        if (known.signed !== signed[at] || known.quietRenewals === 0 || known.renewal) continue;
        known.quietRenewals--;
        this.renewLater(known);
      }
    }
    if (this.checks.size === 0) this.stopChecking();
  }

  /** Stops renewing ahead of requests (the server is closing): answers are still signed when asked. */
  close(): void {
    this.closed = true;
    this.checks.clear();
    this.checksKept = 0;
    this.stopChecking();
  }

  private stopChecking(): void {
    clearInterval(this.checkTimer);
    this.checkTimer = undefined;
  }

  /** A signature made now with the current key, for an answer with a nonce: never remembered. */
  private signedWithNonce(created: number, target: AnswerTarget, nonce: string, contentDigest: string) {
    const { kid, privateKey } = this.keys.current;
    const { params, base } = signatureBase(created, kid, target, nonce, contentDigest);
    return { signatureInput: `${SIGNATURE_LABEL}=${params}`, signature: signatureOf(sign(null, base, privateKey)) };
  }

  /**
   * Resolves once no renewal is queued or being made. Nothing waits for it in service (a renewal
   * left unmade changes no answer); it is how a caller knows the renewals it caused are done.
   */
  renewed(): Promise<void> {
    if (this.renewals.length === this.done && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.whenRenewed.push(resolve));
  }

  /** Queues the renewal of the body's signature, not queued yet (a queue as long as the answers remembered, at most: past it, they wait for their next request). */
  private renewLater(known: KnownBody): void {
    if (this.renewals.length - this.done >= REMEMBERED_ANSWERS) return;
    known.renewal = true;
    this.renewals.push(known);
    this.renewSome();
  }

  /**
   * Starts renewals from the front of the queue while fewer than RENEWALS_IN_FLIGHT are being
   * made: each is signed on libuv's thread pool (the asynchronous form of `crypto.sign`), so that
   * the thread answering requests spends only the signature base and its bookkeeping on it.
   */
  private renewSome(): void {
    while (this.inFlight < RENEWALS_IN_FLIGHT && this.done < this.renewals.length) {
      const known = this.renewals[this.done++] as KnownBody;
      known.renewal = false;
      const created = Math.floor(this.now() / 1000);
      const { signed } = known;
      // Renewed meanwhile (by a request past its minute, or for another answer): nothing to do.
      if (signed === undefined || created < signed.renewAt) continue;
      const { answer } = signed;
      const { kid, privateKey } = this.keys.current;
      const { params, base } = signatureBase(created, kid, answer, undefined, known.contentDigest);
      this.inFlight++;
      sign(null, base, privateKey, (error, signature) => {
        this.inFlight--;
        // A failure leaves the signature it would have replaced: past its minute, a request makes one.
        if (error === null) this.keep(created, kid, params, signatureOf(signature), known, answer);
        this.renewSome();
      });
    }
    // From the front without moving the rest each time: the queue is emptied once all are taken.
    if (this.done === this.renewals.length) {
      this.renewals.length = 0;
      this.done = 0;
      if (this.inFlight === 0) for (const resolve of this.whenRenewed.splice(0)) resolve();
    }
  }
}

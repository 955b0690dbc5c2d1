import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AnswerSigner, contentDigestOf } from '../../src/signing/answer-signer.js';

/**
 * The signer on a clock the test moves: an answer repeated without a nonce gets the signature made
 * first, found by its Buffer or by its bytes, until a moment drawn in the second half of the
 * minute after it was made; never across targets, and never once the minute is over.
 */
describe('AnswerSigner', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const setup = () => {
    let clock = 1_795_900_000_000;
    const signer = new AnswerSigner({ current: { kid: 'kid-1', generation: 1, privateKey } }, () => clock);
    return { signer, tick: (seconds: number) => (clock += seconds * 1000) };
  };
  const body = (text: string) => Buffer.from(JSON.stringify({ status: 'success', data: text }));
  const createdOf = (signatureInput: string) => Number(/;created=(\d+);/.exec(signatureInput)?.[1]);
  /** Verifies the signature over the base RFC 9421 makes of these parts (no nonce). */
  const verifies = (signed: ReturnType<AnswerSigner['sign']>, status: number, path: string, query: string) => {
    const params = signed.signatureInput.slice('sig1='.length);
    const base =
      `"@status": ${status}\n"content-digest": ${signed.contentDigest}\n"@method";req: POST\n` +
      `"@path";req: ${path}\n"@query";req: ?${query}\n"@signature-params": ${params}`;
    const signature = Buffer.from(signed.signature.slice('sig1=:'.length, -1), 'base64');
    return verify(null, Buffer.from(base), publicKey, signature);
  };

  it('gives a repeated answer the signature made first, whether the same Buffer or the same bytes', () => {
    const { signer, tick } = setup();
    const answer = body('a');
    const first = signer.sign(200, 'POST', '/api/purchases/validation', '', undefined, answer);
    expect(first.contentDigest).toBe(contentDigestOf(answer));
    expect(verifies(first, 200, '/api/purchases/validation', '')).toBe(true);
    tick(29);
    expect(signer.sign(200, 'POST', '/api/purchases/validation', '', undefined, answer)).toEqual(first);
    expect(signer.sign(200, 'POST', '/api/purchases/validation', '', undefined, Buffer.from(answer))).toEqual(first);
  });

  it('signs the same Buffer again for another status or target, each verifying for its own', () => {
    const { signer } = setup();
    const answer = body('shared');
    const validation = signer.sign(200, 'POST', '/api/purchases/validation', '', undefined, answer);
    const other = signer.sign(200, 'POST', '/pt/api/purchases/validation', '', undefined, answer);
    const refused = signer.sign(404, 'POST', '/api/purchases/validation', '', undefined, answer);
    expect(new Set([validation.signature, other.signature, refused.signature]).size).toBe(3);
    expect(verifies(other, 200, '/pt/api/purchases/validation', '')).toBe(true);
    expect(verifies(refused, 404, '/api/purchases/validation', '')).toBe(true);
    // And back: the first target's signature is still the one given.
    expect(signer.sign(200, 'POST', '/api/purchases/validation', '', undefined, answer)).toEqual(validation);
  });

  it('signs answers first signed together again at moments spread over the second half-minute, each within the minute', () => {
    const { signer, tick } = setup();
    const answers = Array.from({ length: 200 }, (_, at) => body(`code-${at}`));
    const sign = (answer: Buffer) => signer.sign(200, 'POST', '/api/purchases/validation', '', undefined, answer);
    const first = answers.map(sign);
    const made = createdOf(first[0]?.signatureInput as string);
    tick(REUSED_AT_LEAST);
    expect(answers.map(sign)).toEqual(first);
    tick(45 - REUSED_AT_LEAST);
    const halfway = answers.map(sign);
    const renewed = halfway.filter((signed, at) => signed.signature !== first[at]?.signature).length;
    // 200 draws in 30 seconds: some before 45 s, some after (all on one side: one chance in 2^199).
    expect(renewed).toBeGreaterThan(0);
    expect(renewed).toBeLessThan(answers.length);
    tick(15);
    const late = answers.map(sign);
    for (const signed of late) expect(createdOf(signed.signatureInput)).toBeGreaterThan(made);
    for (const signed of late) expect(verifies(signed, 200, '/api/purchases/validation', '')).toBe(true);
  });

  it('signs every answer that carries a nonce', () => {
    const { signer } = setup();
    const answer = body('n');
    const one = signer.sign(200, 'POST', '/api/purchases/validation', '', 'nonce-1', answer);
    const two = signer.sign(200, 'POST', '/api/purchases/validation', '', 'nonce-2', answer);
    expect(one.signature).not.toBe(two.signature);
    expect(one.signatureInput).toContain(';nonce="nonce-1"');
  });
});

/** The half-minute a signature is surely given again for. */
const REUSED_AT_LEAST = 29;

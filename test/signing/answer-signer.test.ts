import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AnswerSigner, contentDigestOf } from '../../src/signing/answer-signer.js';

/**
 * The signer on a clock the test moves: an answer repeated without a nonce gets the signature made
 * first, found by its Buffer or by its bytes, until a moment drawn in the second half of the
 * minute after it was made; never across targets, and never once the minute is over. An answer
 * asked again is renewed when it falls due (`renewDue`, which the signer calls every second).
 */
describe('AnswerSigner', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const setup = () => {
    let clock = 1_795_900_000_000;
    const signer = new AnswerSigner({ current: { kid: 'kid-1', generation: 1, privateKey } }, () => clock);
    return {
      signer,
      tick: (seconds: number) => (clock += seconds * 1000),
      /** A validation's answer (200, POST, no query, no nonce) signed, as a request would have it. */
      validate: (answer: Buffer) => signer.sign(200, 'POST', '/api/purchases/validation', '', undefined, answer),
      /** What falls due now looked at, and the renewals it queued made. */
      renewDue: async () => {
        signer.renewDue();
        await signer.renewed();
      },
    };
  };
  const body = (text: string) => Buffer.from(JSON.stringify({ status: 'success', data: text }));
  const createdOf = (signatureInput: string) => Number(/;created=(\d+);/.exec(signatureInput)?.[1]);
  /** Verifies the signature over the base RFC 9421 makes of these parts (no nonce). */
  const verifies = (
    signed: ReturnType<AnswerSigner['sign']>,
    status: number,
    path: string,
    query: string,
    method = 'POST',
  ) => {
    const params = signed.signatureInput.slice('sig1='.length);
    const base =
      `"@status": ${status}\n"content-digest": ${signed.contentDigest}\n"@method";req: ${method}\n` +
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

  it('signs the same Buffer again for another status, method, path or query, each verifying for its own', () => {
    const { signer } = setup();
    const answer = body('shared');
    const validation = signer.sign(200, 'POST', '/api/purchases/validation', '', undefined, answer);
    const other = signer.sign(200, 'POST', '/pt/api/purchases/validation', '', undefined, answer);
    const refused = signer.sign(404, 'POST', '/api/purchases/validation', '', undefined, answer);
    const asGet = signer.sign(200, 'GET', '/api/purchases/validation', '', undefined, answer);
    const queried = signer.sign(200, 'POST', '/api/purchases/validation', 'item_id=007', undefined, answer);
    const signatures = [validation, other, refused, asGet, queried].map((signed) => signed.signature);
    expect(new Set(signatures).size).toBe(5);
    expect(verifies(other, 200, '/pt/api/purchases/validation', '')).toBe(true);
    expect(verifies(refused, 404, '/api/purchases/validation', '')).toBe(true);
    expect(verifies(asGet, 200, '/api/purchases/validation', '', 'GET')).toBe(true);
    expect(verifies(queried, 200, '/api/purchases/validation', 'item_id=007')).toBe(true);
    // And back, each the same Buffer asked for in turn: every target's signature is still its own.
    for (const [signed, status, method, query] of [
      [validation, 200, 'POST', ''],
      [queried, 200, 'POST', 'item_id=007'],
      [asGet, 200, 'GET', ''],
      [refused, 404, 'POST', ''],
      [validation, 200, 'POST', ''],
    ] as const) {
      expect(signer.sign(status, method, '/api/purchases/validation', query, undefined, answer)).toEqual(signed);
    }
  });

  it('gives a signature due for renewal at once and renews it beside the requests; past the minute, in front of them', async () => {
    const { signer, tick, validate } = setup();
    const answer = body('due');
    const sign = () => validate(answer);
    const first = sign();
    tick(59);
    // Due (its renewal falls between 30 and 59 s), still given.
    expect(sign()).toEqual(first);
    await signer.renewed();
    const renewed = sign();
    expect(createdOf(renewed.signatureInput)).toBe(createdOf(first.signatureInput) + 59);
    expect(verifies(renewed, 200, '/api/purchases/validation', '')).toBe(true);
    // A minute after it was made, with no turn given to renew it: made again before it is given.
    tick(60);
    const late = sign();
    expect(createdOf(late.signatureInput)).toBe(createdOf(renewed.signatureInput) + 60);
  });

  it('renews answers first signed together at moments spread over the second half-minute, beside the requests', async () => {
    const { signer, tick, validate } = setup();
    const answers = Array.from({ length: 200 }, (_, at) => body(`code-${at}`));
    const first = answers.map(validate);
    const made = createdOf(first[0]?.signatureInput as string);
    tick(29);
    expect(answers.map(validate)).toEqual(first);
    tick(45 - 29);
    // Those due are still given as they were, asked twice over while their renewals are made.
    expect(answers.map(validate)).toEqual(first);
    expect(answers.map(validate)).toEqual(first);
    await signer.renewed();
    const renewed = answers.map(validate).filter((signed, at) => signed.signature !== first[at]?.signature);
    // 200 draws in 30 seconds: some before 45 s, some after (all on one side: one chance in 2^199).
    expect(renewed.length).toBeGreaterThan(0);
    expect(renewed.length).toBeLessThan(answers.length);
    for (const signed of renewed) expect(createdOf(signed.signatureInput)).toBe(made + 45);
    tick(15);
    await signer.renewed();
    for (const signed of answers.map(validate)) {
      expect(createdOf(signed.signatureInput)).toBeGreaterThan(made);
      expect(verifies(signed, 200, '/api/purchases/validation', '')).toBe(true);
    }
  });

  it('renews an answer asked again while its signature held when it falls due, before any request', async () => {
    const { signer, tick, validate, renewDue } = setup();
    const asked = body('asked again');
    const once = body('asked once');
    const first = validate(asked);
    const made = createdOf(first.signatureInput);
    const onceFirst = validate(once);
    tick(10);
    expect(validate(asked)).toEqual(first);
    // Both fall due between 30 and 59 s after they were made; neither is past its minute yet.
    tick(49);
    await renewDue();
    // Renewed when it was looked at: the next request gets the new one, not the one it would renew.
    const renewed = validate(asked);
    expect(createdOf(renewed.signatureInput)).toBe(made + 59);
    expect(verifies(renewed, 200, '/api/purchases/validation', '')).toBe(true);
    // Asked once, not renewed ahead: still the first, renewed only now that a request asks.
    expect(validate(once)).toEqual(onceFirst);
    signer.close();
  });

  it('renews ahead of requests twice after the last request, then no more', async () => {
    const { signer, tick, validate, renewDue } = setup();
    const answer = body('quiet');
    const sign = () => validate(answer);
    const made = createdOf(sign().signatureInput);
    tick(1);
    // The last request.
    sign();
    // Each signature falls due within 59 s of being made: looked at 60, then 59 and 59 s on.
    for (const seconds of [60, 59, 59]) {
      tick(seconds);
      await renewDue();
    }
    // Made at +61 and +120; the one made at +120 was not renewed at +179, and still holds.
    expect(createdOf(sign().signatureInput)).toBe(made + 120);
    signer.close();
  });

  it('stops looking at due signatures once closed; answers are still signed when asked', async () => {
    const { signer, tick, validate, renewDue } = setup();
    const answer = body('closing');
    const sign = () => validate(answer);
    const made = createdOf(sign().signatureInput);
    sign();
    signer.close();
    tick(59);
    await renewDue();
    // Not renewed ahead: the first is given (and renewed beside this request, as without the checks).
    expect(createdOf(sign().signatureInput)).toBe(made);
    tick(61);
    expect(createdOf(sign().signatureInput)).toBe(made + 120);
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

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  type FetchLike,
  fetchSigningKeys,
  SignatureVerificationError,
  type SigningKeySet,
  verifyAnswer,
  verifyLicense,
} from '../../sdk/dist/index.js';
import { ALL_LINES, KEYS } from '../api/fixtures.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

const ORIGIN = 'http://marketplace.test';

/** A fetch over the app's own handler; `tamper` changes the answer on its way, as a fake server or a proxy would. */
function fetchOver(t: TestApp, tamper?: (body: string) => string): FetchLike {
  return async (url, init) => {
    const response = await t.app.inject({
      method: init.method as 'GET' | 'POST',
      url: url.slice(ORIGIN.length),
      headers: init.headers,
      ...(init.body === undefined ? {} : { payload: init.body }),
    });
    const body = tamper ? tamper(response.body) : response.body;
    return {
      status: response.statusCode,
      headers: { get: (name: string) => (response.headers[name.toLowerCase()] as string | undefined) ?? null },
      text: async () => body,
    };
  };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SignatureVerificationError);
  return (error as Error).message;
}

describe.each(TEST_STORES)('the SDK checks signed answers and license tokens (%s store)', (kind) => {
  let t: TestApp;
  let keys: SigningKeySet;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
    keys = await fetchSigningKeys(ORIGIN, fetchOver(t));
  });
  afterAll(async () => {
    await t.close();
  });

  it('verifies every answer of a client given the keys, and refuses a tampered one', async () => {
    const client = createClient({ baseUrl: ORIGIN, apiKey: KEYS.alice, signingKeys: keys, fetch: fetchOver(t) });
    expect((await client.validatePurchase('ALICE-REG-0001'))?.purchase_code).toBe('ALICE-REG-0001');
    expect(await client.validatePurchase('NO-SUCH-CODE')).toBeNull();
    const faked = createClient({
      baseUrl: ORIGIN,
      apiKey: KEYS.alice,
      signingKeys: keys,
      fetch: fetchOver(t, (body) => body.replace('"Regular"', '"Extended"')),
    });
    expect(await refusal(faked.validatePurchase('ALICE-REG-0001'))).toBe('the body does not match Content-Digest');
  });

  it('refuses an answer replayed to another request (another nonce), or unsigned', async () => {
    const nonce = 'first-request';
    const url = `${ORIGIN}/api/purchases/validation`;
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': KEYS.alice, 'signature-nonce': nonce },
      payload: { purchase_code: 'ALICE-REG-0001' },
    });
    const answer = { keys, method: 'POST', url, status: response.statusCode, headers: response.headers };
    await verifyAnswer({ ...answer, nonce, body: response.rawPayload });
    expect(await refusal(verifyAnswer({ ...answer, nonce: 'second-request', body: response.body }))).toBe(
      'the answer is not to this request (another nonce)',
    );
    expect(
      await refusal(
        verifyAnswer({ ...answer, nonce, status: 200, headers: { 'content-type': 'application/json' }, body: '{}' }),
      ),
    ).toBe('the answer is not signed (no Content-Digest, Signature-Input or Signature)');
    expect(await refusal(verifyAnswer({ ...answer, nonce, body: response.body, now: Date.now() + 600_000 }))).toBe(
      'the signature is too old, or from the future',
    );
  });

  it('gets a license token and checks it offline; refuses it expired, changed, or for another instance', async () => {
    const client = createClient({ baseUrl: ORIGIN, apiKey: KEYS.alice, signingKeys: keys, fetch: fetchOver(t) });
    const license = await client.license('ALICE-REG-0001', 'host-7');
    expect(license).not.toBeNull();
    const token = license?.license as string;
    const claims = await verifyLicense(token, { keys, issuer: '/', instance: 'host-7' });
    expect(claims).toMatchObject({ purchase_code: 'ALICE-REG-0001', item_id: 101, license_type: 'Regular' });
    expect(new Date(claims.exp * 1000).toISOString()).toBe(license?.expires_at);
    expect(await refusal(verifyLicense(token, { keys, now: claims.exp * 1000 }))).toBe('the token has expired');
    expect(await refusal(verifyLicense(token, { keys, instance: 'host-8' }))).toBe('the token is for another instance');
    const [head, , signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, license_type: 'Extended' })).toString('base64url');
    expect(await refusal(verifyLicense(`${head}.${forged}.${signature}`, { keys }))).toBe(
      'the token signature does not verify',
    );
    expect(await client.license('NO-SUCH-CODE')).toBeNull();
  });
});

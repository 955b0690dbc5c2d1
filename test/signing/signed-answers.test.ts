import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createLogger } from '../../src/logging.js';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { rotateSigningKey, SigningKeys } from '../../src/signing/signing-keys.js';
import { openStore } from '../../src/store/open-store.js';
import { ALL_LINES, KEYS, UNKNOWN_KEY } from '../api/fixtures.js';
import { url } from '../api/http-assertions.js';
import { type Jwk, parseSignatureInput, verifySignedResponse } from '../helpers/http-signature.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { logIn } from '../web/workspace-forms.js';

interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  rawPayload: Buffer;
  body: string;
}

async function jwksOf(t: TestApp, base = ''): Promise<{ keys: Jwk[] }> {
  const response = await t.app.inject({ url: `${base}/.well-known/jwks.json` });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toBe('application/jwk-set+json; charset=utf-8');
  return JSON.parse(response.body) as { keys: Jwk[] };
}

/** The exchange as the independent verifier reads it. */
function exchange(method: string, target: string, response: Answer, nonce?: string) {
  return {
    method,
    target,
    nonce,
    status: response.statusCode,
    headers: response.headers,
    body: response.rawPayload,
  };
}

describe.each(TEST_STORES)('signed answers and license tokens (%s store)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('$lang', (variant) => {
    const validation = url(variant, '/api/purchases/validation');
    const validate = (code: string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: validation,
        headers: { 'x-api-key': KEYS.alice, ...headers },
        payload: { purchase_code: code },
      }) as Promise<Answer>;

    it('signs a validation answer: it verifies against the published key, with the digest of its body', async () => {
      const { keys } = await jwksOf(t, variant.base);
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', alg: 'EdDSA' });
      const response = await validate('ALICE-REG-0001');
      expect(response.statusCode).toBe(200);
      const params = verifySignedResponse(exchange('POST', validation, response), keys);
      expect(params.keyid).toBe(keys[0]?.kid);
      expect(Math.abs((params.created as number) - Date.now() / 1000)).toBeLessThan(60);
      const input = parseSignatureInput(String(response.headers['signature-input']));
      expect(input.components.map((c) => `${c.name}${c.req ? ';req' : ''}`)).toEqual([
        '@status',
        'content-digest',
        '@method;req',
        '@path;req',
        '@query;req',
      ]);
    });

    it('refuses an answer with one byte changed, another status, or another target', async () => {
      const { keys } = await jwksOf(t, variant.base);
      const response = await validate('ALICE-REG-0001');
      const body = Buffer.from(response.rawPayload);
      body[body.length - 2] ^= 1;
      expect(() => verifySignedResponse({ ...exchange('POST', validation, response), body }, keys)).toThrow(
        /content-digest/,
      );
      // A body whose digest header was forged along with it: the signature covers the digest.
      const forgedDigest = {
        ...exchange('POST', validation, response),
        body,
        headers: {
          ...response.headers,
          'content-digest': `sha-256=:${(await import('node:crypto')).createHash('sha256').update(body).digest('base64')}:`,
        },
      };
      expect(() => verifySignedResponse(forgedDigest, keys)).toThrow('the signature does not verify');
      expect(() => verifySignedResponse({ ...exchange('POST', validation, response), status: 201 }, keys)).toThrow(
        'the signature does not verify',
      );
      expect(() => verifySignedResponse(exchange('POST', `${validation}?purchase_code=other`, response), keys)).toThrow(
        'the signature does not verify',
      );
    });

    it("echoes the client's nonce and covers it: the answer does not verify for another request's nonce", async () => {
      const { keys } = await jwksOf(t, variant.base);
      const nonce = 'n-8c1f0e2a 7d';
      const response = await validate('ALICE-REG-0001', { 'signature-nonce': nonce });
      const params = verifySignedResponse(exchange('POST', validation, response, nonce), keys);
      expect(params.nonce).toBe(nonce);
      expect(String(response.headers['signature-input'])).toContain('"signature-nonce";req);created=');
      expect(() => verifySignedResponse(exchange('POST', validation, response, 'another'), keys)).toThrow(
        'the signature does not verify',
      );
    });

    it('refuses a nonce it could not echo as sent (400), and signs that refusal', async () => {
      const { keys } = await jwksOf(t, variant.base);
      const response = await validate('ALICE-REG-0001', { 'signature-nonce': 'has "quotes"' });
      expect(response.statusCode).toBe(400);
      const messages = {
        en: 'The Signature-Nonce parameter must be at most 255 visible ASCII characters, without quotes or backslashes',
        pt: 'O parâmetro Signature-Nonce deve ser no máximo 255 caracteres ASCII visíveis, sem aspas nem barras invertidas',
      };
      expect(JSON.parse(response.body)).toEqual({ status: variant.error, msg: messages[variant.lang] });
      verifySignedResponse(exchange('POST', validation, response), keys);
    });

    it('signs errors too: 401, 404 (invalid code, unknown path), 405', async () => {
      const { keys } = await jwksOf(t, variant.base);
      const unknownKey = (await t.app.inject({
        url: url(variant, '/api/account/details'),
        headers: { 'x-api-key': UNKNOWN_KEY },
      })) as Answer;
      expect(unknownKey.statusCode).toBe(401);
      verifySignedResponse(exchange('GET', url(variant, '/api/account/details'), unknownKey), keys);
      const invalid = await validate('NO-SUCH-CODE', { 'signature-nonce': 'abc' });
      expect(invalid.statusCode).toBe(404);
      expect(verifySignedResponse(exchange('POST', validation, invalid, 'abc'), keys).nonce).toBe('abc');
      const unknownPath = (await t.app.inject({ url: url(variant, '/api/nothing?x=1') })) as Answer;
      expect(unknownPath.statusCode).toBe(404);
      verifySignedResponse(exchange('GET', url(variant, '/api/nothing?x=1'), unknownPath), keys);
      const wrongMethod = (await t.app.inject({ method: 'DELETE', url: validation })) as Answer;
      expect(wrongMethod.statusCode).toBe(405);
      verifySignedResponse(exchange('DELETE', validation, wrongMethod), keys);
    });

    it('signs a HEAD answer over the body the GET would have', async () => {
      const { keys } = await jwksOf(t, variant.base);
      const target = url(variant, '/api/account/details');
      const get = (await t.app.inject({ url: target, headers: { 'x-api-key': KEYS.alice } })) as Answer;
      const head = (await t.app.inject({
        method: 'HEAD',
        url: target,
        headers: { 'x-api-key': KEYS.alice },
      })) as Answer;
      expect(head.headers['content-digest']).toBe(get.headers['content-digest']);
      verifySignedResponse({ ...exchange('HEAD', target, head), body: get.rawPayload }, keys);
    });

    it('issues a license token that verifies with the published keys and says the purchase', async () => {
      const target = url(variant, '/api/purchases/license');
      const response = await t.app.inject({
        method: 'POST',
        url: target,
        headers: { 'x-api-key': KEYS.alice },
        payload: { purchase_code: ' alice-reg-0001 ', instance: 'host-42' },
      });
      expect(response.statusCode).toBe(200);
      const body = JSON.parse(response.body) as { status: string; data: { license: string; expires_at: string } };
      expect(Object.keys(body)).toEqual(['status', 'data']);
      expect(body.status).toBe(variant.ok);
      expect(Object.keys(body.data)).toEqual(['license', 'expires_at']);
      const jwks = await jwksOf(t, variant.base);
      const { payload, protectedHeader } = await jwtVerify(
        body.data.license,
        createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]),
        { algorithms: ['EdDSA'], issuer: variant.base === '' ? '/' : variant.base },
      );
      expect(protectedHeader.kid).toBe(jwks.keys[0]?.kid);
      expect(payload).toEqual({
        iss: variant.base === '' ? '/' : variant.base,
        iat: expect.any(Number),
        exp: (payload.iat as number) + 30 * 24 * 3600,
        purchase_code: 'ALICE-REG-0001',
        item_id: 101,
        license_type: 'Regular',
        instance: 'host-42',
      });
      expect(body.data.expires_at).toBe(new Date((payload.exp as number) * 1000).toISOString());
      verifySignedResponse(exchange('POST', target, response as Answer), jwks.keys);
    });

    it('answers an invalid code exactly as validation does, and a too long instance with a 400', async () => {
      const license = (payload: Record<string, string>) =>
        t.app.inject({
          method: 'POST',
          url: url(variant, '/api/purchases/license'),
          headers: { 'x-api-key': KEYS.alice },
          payload,
        });
      const refused = await license({ purchase_code: 'NO-SUCH-CODE' });
      const validated = await validate('NO-SUCH-CODE');
      expect([refused.statusCode, refused.body]).toEqual([validated.statusCode, validated.body]);
      const otherSeller = await license({ purchase_code: 'BOB-0001' });
      expect(otherSeller.statusCode).toBe(404);
      const long = await license({ purchase_code: 'ALICE-REG-0001', instance: 'x'.repeat(256) });
      expect(long.statusCode).toBe(400);
      const messages = {
        en: 'The instance parameter must be a text of at most 255 characters',
        pt: 'O parâmetro instance deve ser um texto de no máximo 255 caracteres',
      };
      expect(JSON.parse(long.body)).toEqual({ status: variant.error, msg: messages[variant.lang] });
      const missing = await license({});
      expect(missing.statusCode).toBe(400);
    });
  });

  it('keeps the old key published after a rotation: old tokens still verify, new answers use the new key', async () => {
    const issue = async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/purchases/license',
        headers: { 'x-api-key': KEYS.alice },
        payload: { purchase_code: 'ALICE-REG-0001' },
      });
      return (JSON.parse(response.body) as { data: { license: string } }).data.license;
    };
    const oldToken = await issue();
    const oldKid = decodeProtectedHeader(oldToken).kid;
    const made = await rotateSigningKey(t.store.signingKeys(), t.keys);
    await t.app.signingKeys.refresh();
    const jwks = await jwksOf(t);
    expect(jwks.keys.map((key) => key.kid)).toEqual([made.kid, oldKid]);
    const keySet = createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
    await expect(jwtVerify(oldToken, keySet)).resolves.toMatchObject({ protectedHeader: { kid: oldKid } });
    const newToken = await issue();
    expect(decodeProtectedHeader(newToken).kid).toBe(made.kid);
    await expect(jwtVerify(newToken, keySet)).resolves.toBeDefined();
    const answer = (await t.app.inject({
      url: '/api/account/details',
      headers: { 'x-api-key': KEYS.alice },
    })) as Answer;
    expect(verifySignedResponse(exchange('GET', '/api/account/details', answer), jwks.keys).keyid).toBe(made.kid);
  });

  it('signs the new answer when the same request is answered otherwise (a purchase refunded meanwhile)', async () => {
    const { keys } = await jwksOf(t);
    const ask = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/purchases/validation',
        headers: { 'x-api-key': KEYS.alice },
        payload: { purchase_code: 'alice_nosupport_3' },
      }) as Promise<Answer>;
    const before = await ask();
    const again = await ask();
    expect(before.statusCode).toBe(200);
    expect(again.headers.signature).toBe(before.headers.signature);
    await t.store.setPurchaseStatus('alice_nosupport_3', 'refunded');
    const after = await ask();
    expect(after.statusCode).toBe(404);
    expect(after.headers['content-digest']).not.toBe(before.headers['content-digest']);
    verifySignedResponse(exchange('POST', '/api/purchases/validation', after), keys);
  });

  it("shows the published keys in the workspace's settings page", async () => {
    await t.store.setPasswordHash('alice', await hashPassword('a long enough password'));
    const { jar } = await logIn(t.app, '/pt', 'alice', 'a long enough password');
    const page = await t.app.inject({ url: '/pt/workspace/settings', cookies: jar });
    expect(page.statusCode).toBe(200);
    const { keys } = await jwksOf(t, '/pt');
    expect(page.body).toContain('<h2 id="signing-heading">Chaves de assinatura</h2>');
    for (const key of keys) {
      expect(page.body).toContain(`<code>${key.kid}</code>`);
      expect(page.body).toContain(`<code>${key.x}</code>`);
    }
    expect(page.body).toContain('<a href="/pt/.well-known/jwks.json">');
  });

  it('signs with the same key on a second instance over the same store', async () => {
    const second = await buildApp({ config: t.config, store: t.store, keys: t.keys, logger: createLogger('silent') });
    try {
      const other = await second.inject({ url: '/.well-known/jwks.json' });
      expect(other.body).toBe((await t.app.inject({ url: '/.well-known/jwks.json' })).body);
      const { keys } = JSON.parse(other.body) as { keys: Jwk[] };
      const answer = (await second.inject({
        url: '/api/account/details',
        headers: { 'x-api-key': KEYS.alice },
      })) as unknown as Answer;
      verifySignedResponse(exchange('GET', '/api/account/details', answer), keys);
    } finally {
      await second.close();
    }
  });

  it('makes one key pair when instances start at once on an empty store', async () => {
    const { createTestDatabase } = await import('../helpers/test-database.js');
    const { loadConfig } = await import('../../src/config.js');
    const database = await createTestDatabase(kind);
    const config = loadConfig({ ...database.env });
    const stores = [await openStore(config.store), await openStore(config.store)];
    try {
      const opened = await Promise.all(stores.map((store) => SigningKeys.open(store.signingKeys(), t.keys, 30)));
      expect(opened[0]?.current.kid).toBe(opened[1]?.current.kid);
      expect(await stores[0]?.signingKeys().all()).toHaveLength(1);
    } finally {
      for (const store of stores) await store.close();
      await database.drop();
    }
  });
});

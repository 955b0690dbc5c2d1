import bcrypt from 'bcryptjs';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { openMarketbob } from '../../src/marketbob/marketbob-connection.js';
import { MarketbobFollower } from '../../src/marketbob/marketbob-follower.js';
import { syncMarketbob } from '../../src/marketbob/marketbob-sync.js';
import { checkSchema, schemaReportLines } from '../../src/marketbob/schema-check.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { type Jar, keep, logIn, tokenIn } from '../web/workspace-forms.js';
import { laravelEncrypt, newAppKey } from './laravel-payload.js';
import {
  createMarketbobDatabase,
  eventually,
  insertSettings,
  type MarketbobTestDatabase,
  marketbobNow,
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob-database.js';

/** MarketBob's fixtures' password (its bcrypt hash is userRow's). */
const PASSWORD = 'secret-password';
const MEDIA = 'https://market.example.com';

const WRONG_CREDENTIALS = 'The username, email or password is not right. Please try again.';
const WRONG_CODE = 'The code is not right, or it was used already. Please enter the current code.';
const USE_MARKETPLACE =
  'Your account uses two-factor login, which cannot be checked here right now. Please log in on the marketplace instead.';

const totpOf = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
const codeNow = (secret: string) => totpOf(secret).generate();
/** Six digits that are the code of none of the steps around now (the current one and one each way). */
function wrongCode(secret: string): string {
  const now = Date.now();
  const taken = new Set([-1, 0, 1, 2].map((step) => totpOf(secret).generate({ timestamp: now + step * 30_000 })));
  for (let n = 0; ; n++) {
    const code = String((123_456 + n * 7919) % 1_000_000).padStart(6, '0');
    if (!taken.has(code)) return code;
  }
}

/** The page with its per-request CSRF token blanked: what two answers are compared on. */
const withoutToken = (html: string) => html.replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf" value=""');

/**
 * Who may log in to the workspace for a marketplace that runs MarketBob: authors only (a buyer is
 * answered as a wrong password), and, for a seller who turned on two-factor login there, only
 * after the current code (RFC 6238), used once, on a second page that is not a session. Through
 * HTTP, on both stores, MarketBob on MariaDB, followed as a server follows it.
 */
describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)('workspace logins of MarketBob users (%s)', (kind) => {
  const appKey = newAppKey();
  const secrets = {
    twofa: new Secret().base32,
    replay: new Secret().base32,
    counted: new Secret().base32,
    portuguese: new Secret().base32,
    later: new Secret().base32,
    changer: new Secret().base32,
  };
  const keys = { twofa: newApiKey(), author: newApiKey() };
  let database: MarketbobTestDatabase;
  let test: TestApp;
  let followerStore: Store;
  let follower: MarketbobFollower;
  let db: ReturnType<typeof openMarketbob>;
  const ids: Record<string, number> = {};
  /** The same store and MarketBob, served by an app configured without MarketBob's APP_KEY. */
  let keyless: TestApp;

  const twoFactorUser = (username: string, secret: string, key = appKey) =>
    userRow({ username, google2fa_status: 1, google2fa_secret: laravelEncrypt(secret, key) });

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true });
    // The columns pragmarx/google2fa-laravel's migration adds to MarketBob's users.
    await database.query(
      'ALTER TABLE users ADD COLUMN google2fa_status tinyint(1) NOT NULL DEFAULT 0, ADD COLUMN google2fa_secret text NULL',
    );
    await insertSettings(database, false);
    ids.author = await database.insert('users', userRow({ username: 'author', api_key: keys.author }));
    ids.buyer = await database.insert('users', userRow({ username: 'buyer', is_author: 0 }));
    ids.twofa = await database.insert('users', { ...twoFactorUser('twofa', secrets.twofa), api_key: keys.twofa });
    ids.replay = await database.insert('users', twoFactorUser('replay', secrets.replay));
    ids.counted = await database.insert('users', twoFactorUser('counted', secrets.counted));
    ids.portuguese = await database.insert('users', twoFactorUser('portuguese', secrets.portuguese));
    ids.otherKey = await database.insert('users', twoFactorUser('otherkey', secrets.twofa, newAppKey()));
    ids.noSecret = await database.insert('users', userRow({ username: 'nosecret', google2fa_status: 1 }));
    ids.later = await database.insert('users', userRow({ username: 'later', is_author: 0 }));
    ids.changer = await database.insert('users', twoFactorUser('changer', secrets.changer));
    const marketbob = { MARKETBOB_DATABASE_URL: database.url, MARKETBOB_MEDIA_BASE_URL: MEDIA };
    test = await createTestApp(kind, {
      env: { ...marketbob, MARKETBOB_APP_KEY: appKey },
      configFile: { workspace: { loginAttempts: { perAccount: 3, perClient: 100, windowSeconds: 900 } } },
    });
    followerStore = await openStore(loadConfig(test.env).store);
    db = openMarketbob(database.url);
    follower = new MarketbobFollower({
      db,
      store: followerStore,
      keys: test.keys,
      config: {
        url: database.url,
        pollSeconds: 0.5,
        mediaBaseUrl: MEDIA,
        timezone: 'UTC',
        reconcileMinutes: 10,
        behindSeconds: 30,
      },
      logger: createLogger('silent'),
    });
    await follower.start();
    await eventually(async () => expect(await test.store.marketbobUserId('later')).toBeDefined());

    keyless = await createTestApp(kind, { env: marketbob });
    const synced = await syncMarketbob(db, keyless.store, keyless.keys, {
      url: database.url,
      pollSeconds: 2,
      mediaBaseUrl: MEDIA,
      timezone: 'UTC',
      reconcileMinutes: 10,
      behindSeconds: 30,
    });
    expect(synced.ok).toBe(true);
  });
  afterAll(async () => {
    await follower?.stop();
    await db?.destroy();
    await followerStore?.close();
    await keyless?.close();
    await test?.close();
    await database?.drop();
  });

  /** The code page's form, then the code posted, as a browser would. */
  async function postCode(app: TestApp, base: string, jar: Jar, code: string, remoteAddress?: string) {
    const address = remoteAddress === undefined ? {} : { remoteAddress };
    const form = await app.app.inject({ url: `${base}/login/code`, cookies: jar, ...address });
    keep(jar, form);
    expect(form.statusCode).toBe(200);
    const response = await app.app.inject({
      method: 'POST',
      url: `${base}/login/code`,
      cookies: jar,
      payload: { _csrf: tokenIn(form.body), code },
      ...address,
    });
    keep(jar, response);
    return response;
  }

  it('the bridge keeps who may log in beside each account', async () => {
    expect(await test.store.marketbobLogin('author')).toEqual({ userId: ids.author, isAuthor: true, twoFactor: '' });
    expect(await test.store.marketbobLogin('buyer')).toEqual({ userId: ids.buyer, isAuthor: false, twoFactor: '' });
    const twofa = await test.store.marketbobLogin('twofa');
    const [stored] = await database.query<{ google2fa_secret: string }>(
      'SELECT google2fa_secret FROM users WHERE id = ?',
      [ids.twofa],
    );
    // Kept as MarketBob stores it: encrypted.
    expect(twofa).toEqual({ userId: ids.twofa, isAuthor: true, twoFactor: stored?.google2fa_secret });
    expect(twofa?.twoFactor).not.toContain(secrets.twofa);
    expect((await test.store.marketbobLogin('nosecret'))?.twoFactor).toBe('!on-without-secret');
  });

  it('`marketbob check` lists the two-factor columns among the optional ones', async () => {
    const lines = schemaReportLines(await checkSchema(db));
    expect(lines).toContain('optional columns (validity period, two-factor login):');
    expect(lines).toContain('  users.google2fa_status: present (two-factor login: the workspace asks for the code)');
    expect(lines).toContain(
      '  users.google2fa_secret: present (two-factor login: the secret codes are checked against)',
    );
    expect(lines.at(-1)).toBe('ok: a sync can read this database');
  });

  it('a time step is taken once across store connections, even at the same instant; never an older one', async () => {
    const userId = 990_000 + (kind === 'sqlite' ? 1 : 2);
    const taken = await Promise.all([
      test.store.claimLoginStep(userId, 100),
      followerStore.claimLoginStep(userId, 100),
      test.store.claimLoginStep(userId, 100),
    ]);
    expect(taken.filter(Boolean)).toHaveLength(1);
    expect(await followerStore.claimLoginStep(userId, 99)).toBe(false);
    expect(await followerStore.claimLoginStep(userId, 101)).toBe(true);
    expect(await test.store.claimLoginStep(userId, 101)).toBe(false);
  });

  it('a password changed in MarketBob while the code page waits ends the pending login', async () => {
    const address = '192.0.2.10';
    const { response, jar } = await logIn(test.app, '', 'changer', PASSWORD, {}, address);
    expect(response.headers.location).toBe('/login/code');
    const form = await test.app.inject({ url: '/login/code', cookies: jar, remoteAddress: address });
    keep(jar, form);
    const before = await test.store.passwordHash('changer');
    const other = bcrypt.hashSync('another-password', 10).replace(/^\$2b\$/, '$2y$');
    await database.update('users', ids.changer, { password: other, updated_at: marketbobNow() });
    await eventually(async () => expect(await test.store.passwordHash('changer')).not.toBe(before));
    const answer = await test.app.inject({
      method: 'POST',
      url: '/login/code',
      cookies: jar,
      payload: { _csrf: tokenIn(form.body), code: codeNow(secrets.changer) },
      remoteAddress: address,
    });
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe('/login?expired=1');
    keep(jar, answer);
    expect(jar).not.toHaveProperty('mp_session');
    expect(jar).not.toHaveProperty('mp_login');
    const notice = await test.app.inject({ url: '/login?expired=1', remoteAddress: address });
    expect(notice.body).toContain('Your login took too long. Please log in again.');
  });

  it('an author without two-factor login logs in with the password', async () => {
    const { response } = await logIn(test.app, '', 'author', PASSWORD, {}, '192.0.2.1');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/workspace/settings');
  });

  it('a buyer is refused exactly as a wrong password, and counted as one', async () => {
    const right = await logIn(test.app, '', 'buyer', PASSWORD, {}, '192.0.2.2');
    const wrong = await logIn(test.app, '', 'buyer', 'not the password', {}, '192.0.2.2');
    expect(right.response.statusCode).toBe(401);
    expect(wrong.response.statusCode).toBe(401);
    expect(withoutToken(right.response.body)).toBe(withoutToken(wrong.response.body));
    expect(right.response.body).toContain(WRONG_CREDENTIALS);
    expect(Object.keys(right.response.headers).sort()).toEqual(Object.keys(wrong.response.headers).sort());
    expect(right.response.cookies.map((c) => c.name)).toEqual(wrong.response.cookies.map((c) => c.name));
    expect(right.jar).not.toHaveProperty('mp_session');
    // The third failure of this account and client spends the budget: the right password is then 429 too.
    await logIn(test.app, '', 'buyer', PASSWORD, {}, '192.0.2.2');
    const locked = await logIn(test.app, '', 'buyer', PASSWORD, {}, '192.0.2.2');
    expect(locked.response.statusCode).toBe(429);
  });

  it('two-factor login: no session before the code, refused without it and with a wrong one, let in with the right one', async () => {
    const address = '192.0.2.3';
    const { response, jar } = await logIn(test.app, '', 'twofa', PASSWORD, {}, address);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login/code');
    expect(jar).not.toHaveProperty('mp_session');
    expect(jar).toHaveProperty('mp_login');
    const pendingCookie = response.cookies.find((c) => c.name === 'mp_login');
    expect(pendingCookie).toMatchObject({ path: '/', httpOnly: true, sameSite: 'Strict', maxAge: 300 });
    // The pending login opens no page, and shows no key.
    const settings = await test.app.inject({ url: '/workspace/settings', cookies: jar, remoteAddress: address });
    expect(settings.statusCode).toBe(303);
    expect(settings.headers.location).toBe('/login');

    const page = await test.app.inject({ url: '/login/code', cookies: jar, remoteAddress: address });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('<title>Two-factor login · ');
    expect(page.body).toContain('Enter the six-digit code that your authenticator app shows for the marketplace.');
    expect(page.body).toContain('autocomplete="one-time-code"');
    expect(page.body).not.toContain(keys.twofa);

    const blank = await postCode(test, '', jar, '', address);
    expect(blank.statusCode).toBe(400);
    expect(blank.body).toContain('<p class="field-error" id="login-code-missing">Enter the six-digit code.</p>');
    const wrong = await postCode(test, '', jar, wrongCode(secrets.twofa), address);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain(`<p class="error" role="alert" id="code-error">${WRONG_CODE}</p>`);
    expect(jar).not.toHaveProperty('mp_session');

    // A form without its CSRF token is refused as every other form is.
    const forged = await test.app.inject({
      method: 'POST',
      url: '/login/code',
      cookies: jar,
      payload: { code: codeNow(secrets.twofa) },
      remoteAddress: address,
    });
    expect(forged.statusCode).toBe(403);

    const right = await postCode(test, '', jar, codeNow(secrets.twofa), address);
    expect(right.statusCode).toBe(303);
    expect(right.headers.location).toBe('/workspace/settings');
    expect(jar).toHaveProperty('mp_session');
    expect(jar).not.toHaveProperty('mp_login');
    const signedIn = await test.app.inject({ url: '/workspace/settings', cookies: jar, remoteAddress: address });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.body).toContain(keys.twofa.slice(-4));
  });

  it('a code is used once: the same code again is refused, even after a right password', async () => {
    const address = '192.0.2.4';
    const code = codeNow(secrets.replay);
    const first = await logIn(test.app, '', 'replay', PASSWORD, {}, address);
    expect((await postCode(test, '', first.jar, code, address)).statusCode).toBe(303);
    const second = await logIn(test.app, '', 'replay', PASSWORD, {}, address);
    expect(second.response.statusCode).toBe(303);
    const again = await postCode(test, '', second.jar, code, address);
    expect(again.statusCode).toBe(401);
    expect(again.body).toContain(WRONG_CODE);
    expect(second.jar).not.toHaveProperty('mp_session');
  });

  it('wrong codes count as failed logins of the account and client, until 429', async () => {
    const address = '192.0.2.5';
    const { jar } = await logIn(test.app, '', 'counted', PASSWORD, {}, address);
    for (let n = 0; n < 3; n++) {
      expect((await postCode(test, '', jar, wrongCode(secrets.counted), address)).statusCode).toBe(401);
    }
    const refused = await postCode(test, '', jar, codeNow(secrets.counted), address);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toMatch(/Too many failed attempts\. Please wait \d+ minutes? and try again\./);
    expect(jar).not.toHaveProperty('mp_session');
    // The same budget as the password's: the login form is refused too.
    expect((await logIn(test.app, '', 'counted', PASSWORD, {}, address)).response.statusCode).toBe(429);
    // Another client is not locked out by these.
    const elsewhere = await logIn(test.app, '', 'counted', PASSWORD, {}, '192.0.2.55');
    expect(elsewhere.response.statusCode).toBe(303);
  });

  it('the Portuguese pages', async () => {
    const address = '192.0.2.6';
    const { response, jar } = await logIn(test.app, '/pt', 'portuguese', PASSWORD, {}, address);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/pt/login/code');
    const page = await test.app.inject({ url: '/pt/login/code', cookies: jar, remoteAddress: address });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="pt-BR">');
    expect(page.body).toContain('<title>Login em duas etapas · ');
    expect(page.body).toContain(
      'Informe o código de seis dígitos que seu aplicativo autenticador mostra para o marketplace.',
    );
    expect(page.body).toContain('<button type="submit" class="button primary">Verificar</button>');
    const wrong = await postCode(test, '/pt', jar, wrongCode(secrets.portuguese), address);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('O código está incorreto ou já foi usado. Informe o código atual.');
    const right = await postCode(test, '/pt', jar, codeNow(secrets.portuguese), address);
    expect(right.statusCode).toBe(303);
    expect(right.headers.location).toBe('/pt/workspace/settings');
    // The English base does not take the Portuguese one's pending login.
    const other = await logIn(test.app, '/pt', 'portuguese', PASSWORD, {}, address);
    const crossed = await test.app.inject({ url: '/login/code', cookies: other.jar, remoteAddress: address });
    expect(crossed.statusCode).toBe(303);
    expect(crossed.headers.location).toBe('/login?expired=1');
  });

  it('a secret that cannot be read here (no APP_KEY, another key, none stored): refused, pointed to the marketplace', async () => {
    for (const username of ['otherkey', 'nosecret']) {
      const { response, jar } = await logIn(test.app, '', username, PASSWORD, {}, '192.0.2.7');
      expect(response.statusCode).toBe(403);
      expect(response.body).toContain(`<p class="error" role="alert" id="login-error">${USE_MARKETPLACE}</p>`);
      expect(jar).not.toHaveProperty('mp_session');
      expect(jar).not.toHaveProperty('mp_login');
    }
    const en = await logIn(keyless.app, '', 'twofa', PASSWORD, {}, '192.0.2.8');
    expect(en.response.statusCode).toBe(403);
    expect(en.response.body).toContain(USE_MARKETPLACE);
    expect(en.jar).not.toHaveProperty('mp_session');
    expect(en.jar).not.toHaveProperty('mp_login');
    const pt = await logIn(keyless.app, '/pt', 'twofa', PASSWORD, {}, '192.0.2.8');
    expect(pt.response.statusCode).toBe(403);
    expect(pt.response.body).toContain(
      'Sua conta usa login em duas etapas, que não pode ser verificado aqui agora. Entre pelo marketplace.',
    );
    // An author without two-factor login is not concerned.
    expect((await logIn(keyless.app, '', 'author', PASSWORD, {}, '192.0.2.8')).response.statusCode).toBe(303);
    // Neither log line nor page holds the key or the secret.
    const logs = [...test.logs, ...keyless.logs].join('');
    expect(logs).toContain('login refused: two-factor login on, and its secret cannot be read here');
    expect(logs).not.toContain(appKey.slice('base64:'.length));
    expect(logs).not.toContain(secrets.twofa);
  });

  it("changes in MarketBob reach the logins within the follower's poll", async () => {
    const address = '192.0.2.9';
    const outcome = async () => (await logIn(test.app, '', 'later', PASSWORD, {}, address)).response;
    // A buyer becomes an author.
    await database.update('users', ids.later, { is_author: 1, updated_at: marketbobNow() });
    await eventually(async () => expect((await test.store.marketbobLogin('later'))?.isAuthor).toBe(true));
    expect((await outcome()).headers.location).toBe('/workspace/settings');
    // Two-factor login turned on, then off.
    await database.update('users', ids.later, {
      google2fa_status: 1,
      google2fa_secret: laravelEncrypt(secrets.later, appKey),
      updated_at: marketbobNow(),
    });
    await eventually(async () => expect((await test.store.marketbobLogin('later'))?.twoFactor).not.toBe(''));
    expect((await outcome()).headers.location).toBe('/login/code');
    await database.update('users', ids.later, { google2fa_status: 0, updated_at: marketbobNow() });
    await eventually(async () => expect((await test.store.marketbobLogin('later'))?.twoFactor).toBe(''));
    expect((await outcome()).headers.location).toBe('/workspace/settings');
  });
});

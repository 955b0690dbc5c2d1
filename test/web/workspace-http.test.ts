import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/keys/api-keys.js';
import { checkPasswordSync, hashPassword } from '../../src/passwords/password-hash.js';
import { createWorkspaceSessions } from '../../src/web/workspace-sessions.js';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { type Jar, keep, logIn, tokenIn } from './workspace-forms.js';

/** The workspace over HTTP (inject): headers, cookies, limits, grace period, sessions, import/export, CLI. */

const PASSWORD = 'a long enough password';
const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

const account = (username: string, fields: Record<string, unknown> = {}) => ({
  type: 'account',
  username,
  email: `${username}@example.com`,
  registered_at: '2023-01-02T03:04:05Z',
  ...fields,
});

describe.each(TEST_STORES)('workspace over HTTP (%s)', (kind) => {
  let t: TestApp;
  const ANN_KEY = 'ann-key-0123456789abcdef';
  const KIM_KEY = 'kim-key-0123456789abcdef';

  beforeAll(async () => {
    const hash = await hashPassword(PASSWORD);
    t = await createTestApp(kind, {
      configFile: {
        keyRotationGraceSeconds: 3600,
        workspace: { loginAttempts: { perAccount: 3, perClient: 50, windowSeconds: 600 } },
      },
      logLevel: 'trace',
      lines: [
        account('ann', { api_key: ANN_KEY, password_hash: hash }),
        account('limited', { password_hash: hash }),
        account('idle', { password_hash: hash }),
        account('kim', { api_key: KIM_KEY, password_hash: hash }),
      ],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers pages as UTF-8 HTML with the security headers; the JSON API keeps its own headers', async () => {
    for (const url of ['/login', '/pt/login', '/workspace/settings', '/pt/workspace/nowhere']) {
      const response = await t.app.inject({ url });
      expect(response.headers).toMatchObject(SECURITY_HEADERS);
    }
    const page = await t.app.inject({ url: '/pt/login' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<html lang="pt-BR">');
    expect(page.body).toContain('<label for="login-username">Usuário ou e-mail</label>');
    const missing = await t.app.inject({ url: '/pt/workspace/nowhere' });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('Página não encontrada');

    const api = await t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': ANN_KEY } });
    expect(api.statusCode).toBe(200);
    // None of the pages' headers or cookies reach the API's answers.
    for (const header of ['content-security-policy', 'x-frame-options', 'referrer-policy', 'set-cookie']) {
      expect(api.headers[header], header).toBeUndefined();
    }
    expect(api.headers['content-type']).toBe('application/json; charset=utf-8');
    const unknown = await t.app.inject({ url: '/api/nothing' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ status: 'error', msg: 'Not found' });
  });

  it('serves pages with nothing the strict CSP would refuse: no inline style or script, no other origin', async () => {
    const { jar } = await logIn(t.app, '/pt', 'ann', PASSWORD);
    const pages = [
      await t.app.inject({ url: '/login' }),
      await t.app.inject({ url: '/pt/login' }),
      ...(await Promise.all(
        ['/pt/workspace/settings', '/pt/workspace/settings/generate', '/pt/workspace/nowhere'].map((url) =>
          t.app.inject({ url, cookies: jar }),
        ),
      )),
    ];
    for (const page of pages) {
      expect(page.body).toContain('<html lang=');
      expect(page.body).not.toMatch(/\sstyle=|<style|\son[a-z]+=|<script(?![^>]*\ssrc=)|(?:src|href|action)="(?![/#])/);
    }
  });

  it("says a blank login field in the page's language, beside the field; the form is novalidate; no attempt is counted", async () => {
    for (const [base, usernameMissing, passwordMissing] of [
      ['', 'Enter your username or email.', 'Enter your password.'],
      ['/pt', 'Informe seu usuário ou e-mail.', 'Informe sua senha.'],
    ] as const) {
      const form = await t.app.inject({ url: `${base}/login` });
      expect(form.body).toContain(`<form method="post" action="${base}/login" class="stack" novalidate>`);
      const both = await logIn(t.app, base, '  ', '');
      expect(both.response.statusCode).toBe(400);
      expect(both.response.body).toContain(`<p class="field-error" id="login-username-missing">${usernameMissing}</p>`);
      expect(both.response.body).toContain(`<p class="field-error" id="login-password-missing">${passwordMissing}</p>`);
      expect(both.response.body).toContain('aria-invalid="true" aria-describedby="login-username-missing" autofocus');
      const password = await logIn(t.app, base, 'limited', '');
      expect(password.response.statusCode).toBe(400);
      expect(password.response.body).not.toContain('login-username-missing');
      // (Not counted: the per-account budget test below still gets its three 401s for "limited".)
      expect(password.response.body).toContain('value="limited">');
      expect(password.response.body).toContain(
        `<p class="field-error" id="login-password-missing">${passwordMissing}</p>`,
      );
    }
  });

  it('shows when an import set the key, its creation date once this service made it; and its last use', async () => {
    const { jar } = await logIn(t.app, '', 'kim', PASSWORD);
    const settingsOf = async () => (await t.app.inject({ url: '/workspace/settings', cookies: jar })).body;
    const imported = await settingsOf();
    expect(imported).toContain('<dt>Imported on</dt>\n      <dd><time id="key-created" datetime=');
    expect(imported).toContain(
      '<dt>Last used</dt>\n      <dd class="quiet-text">Not yet (uses are recorded once a minute)</dd>',
    );
    expect((await t.store.keyDate('kim'))?.origin).toBe('imported');

    const before = Date.now();
    const rotated = await runCli(['keys', 'rotate', 'kim'], { cwd: t.dir, env: cleanEnv({ ...t.env }) });
    expect(rotated.code, rotated.stderr).toBe(0);
    const after = Date.now();
    expect((await t.store.keyDate('kim'))?.origin).toBe('made');
    const createdAt = (await t.store.keyDate('kim'))?.at as number;
    expect(createdAt).toBeGreaterThanOrEqual(before);
    expect(createdAt).toBeLessThanOrEqual(after);
    const made = await settingsOf();
    expect(made).toContain(
      `<dd><time id="key-created" datetime="${new Date(createdAt).toISOString()}">${new Intl.DateTimeFormat('en-GB', {
        dateStyle: 'long',
        timeStyle: 'long',
        timeZone: 'UTC',
      }).format(new Date(createdAt))}</time></dd>`,
    );

    // The API's uses, as KeyUsage writes them: one before the rotation (the old key's) is not shown.
    await t.store.recordKeyUses([{ username: 'kim', at: createdAt - 1 }]);
    expect(await settingsOf()).toContain('Not yet (uses are recorded once a minute)');
    const usedAt = createdAt + 60_000;
    await t.store.recordKeyUses([{ username: 'kim', at: usedAt }]);
    expect(await settingsOf()).toContain(
      `<dd><time id="key-last-used" datetime="${new Date(usedAt).toISOString()}">${new Intl.DateTimeFormat('en-GB', {
        dateStyle: 'long',
        timeStyle: 'long',
        timeZone: 'UTC',
      }).format(new Date(usedAt))}</time></dd>`,
    );

    // An import that brings another key: made elsewhere, so the date it arrived.
    await t.importLines([account('kim', { api_key: 'kim-key-from-the-shop-0001' })]);
    expect((await t.store.keyDate('kim'))?.origin).toBe('imported');
    expect(await settingsOf()).toContain('<dt>Imported on</dt>');
  });

  it('gives the validation call ready to copy, for this variant, the key masked until Show', async () => {
    const { jar } = await logIn(t.app, '/pt', 'ann', PASSWORD);
    const settings = await t.app.inject({
      url: '/pt/workspace/settings',
      cookies: jar,
      headers: { host: 'shop.test' },
    });
    // The masked page holds no key at all; Copy asks for it, with the page's CSRF token, as Show does.
    const asked = await t.app.inject({
      method: 'POST',
      url: '/pt/workspace/settings/key',
      cookies: jar,
      headers: { host: 'shop.test' },
      payload: { _csrf: tokenIn(settings.body) },
    });
    expect(asked.statusCode).toBe(200);
    expect(asked.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(asked.headers['cache-control']).toBe('no-store');
    const { key, examples } = asked.json() as { key: string; examples: { curl: string; php: string } };
    expect(key).toBe(ANN_KEY);
    expect(settings.body).not.toContain(key);
    expect(settings.body).not.toContain('<template');
    expect(examples.curl).toBe(
      "curl -X POST 'http://shop.test/pt/api/purchases/validation' \\\n" +
        `  -H 'X-Api-Key: ${key}' \\\n  -d 'purchase_code=CODIGO-DE-COMPRA'`,
    );
    expect(examples.php).toContain(`CURLOPT_HTTPHEADER => ['X-Api-Key: ${key}'],`);
    // Without the token (another site's form, a stale page), nothing.
    const forged = await t.app.inject({
      method: 'POST',
      url: '/pt/workspace/settings/key',
      cookies: jar,
      payload: { _csrf: 'forged' },
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).not.toContain(key);
    const mask = `${'•'.repeat(20)}${key.slice(-4)}`;
    expect(settings.body).toContain(
      `<pre class="code" data-example="curl"><code>curl -X POST &#39;http://shop.test/pt/api/purchases/validation&#39; \\\n  -H &#39;X-Api-Key: ${mask}&#39; \\\n  -d &#39;purchase_code=CODIGO-DE-COMPRA&#39;</code></pre>`,
    );
    expect(settings.body).toContain(`CURLOPT_HTTPHEADER =&gt; [&#39;X-Api-Key: ${mask}&#39;],`);
    expect(settings.body).toContain('<a href="/pt/docs">Ler a documentação da API</a>');
    const shown = await t.app.inject({
      method: 'POST',
      url: '/pt/workspace/settings/show',
      cookies: jar,
      payload: { _csrf: tokenIn(settings.body) },
    });
    expect(shown.statusCode).toBe(303);
    const revealed = await t.app.inject({
      url: '/pt/workspace/settings',
      cookies: jar,
      headers: { host: 'shop.test' },
    });
    expect(revealed.body).toContain(`-H &#39;X-Api-Key: ${key}&#39;`);
    expect(revealed.body).toContain(`CURLOPT_HTTPHEADER =&gt; [&#39;X-Api-Key: ${key}&#39;],`);
  });

  it('sets a session cookie that holds only a random id: HttpOnly, SameSite=Lax, Path the base; a new id at each login', async () => {
    const jar: Jar = {};
    const form = await t.app.inject({ url: '/pt/login' });
    keep(jar, form);
    const response = await t.app.inject({
      method: 'POST',
      url: '/pt/login',
      cookies: jar,
      payload: { _csrf: tokenIn(form.body), username: 'ann', password: PASSWORD },
    });
    keep(jar, response);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/pt/workspace/settings');
    const session = response.cookies.find((cookie) => cookie.name === 'mp_session_pt');
    expect(session).toMatchObject({ path: '/pt', httpOnly: true, sameSite: 'Lax' });
    expect(session?.secure).toBeUndefined();
    expect(session?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const first = session?.value as string;
    // Logging in again (the login form of the same browser) gives a new id and ends the one the browser held.
    const again = await t.app.inject({
      method: 'POST',
      url: '/pt/login',
      cookies: jar,
      payload: { _csrf: tokenIn(form.body), username: 'ann', password: PASSWORD },
    });
    expect(again.statusCode).toBe(303);
    keep(jar, again);
    expect(jar.mp_session_pt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(jar.mp_session_pt).not.toBe(first);
    // The old id no longer opens anything.
    const old = await t.app.inject({ url: '/pt/workspace/settings', cookies: { mp_session_pt: first } });
    expect(old.statusCode).toBe(303);
    expect(old.headers.location).toBe('/pt/login?ended=1');
    const settings = await t.app.inject({ url: '/pt/workspace/settings', cookies: jar });
    expect(settings.statusCode).toBe(200);
    expect(settings.body).toContain('<h2 id="api-key-heading">Chave de API</h2>');
  });

  it('limits failed logins per account, with a clear message and Retry-After, even for the right password then', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await logIn(t.app, '', 'limited', 'wrong password')).response.statusCode).toBe(401);
    }
    const { response } = await logIn(t.app, '', 'limited', PASSWORD);
    expect(response.statusCode).toBe(429);
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    // Windows are aligned on the clock (src/limits): the wait is what is left of this one.
    const minutes = Math.ceil(retryAfter / 60);
    expect(response.body).toContain(
      `Too many failed attempts. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`,
    );
    // Another account from the same client is not blocked by it.
    expect((await logIn(t.app, '', 'ann', PASSWORD)).response.statusCode).toBe(303);
    // No password ever reaches the log.
    expect(t.logs.join('')).not.toContain('wrong password');
    expect(t.logs.join('')).not.toContain(PASSWORD);
  });

  it('with keyRotationGraceSeconds, the old key keeps working until the time the page gives', async () => {
    const { jar } = await logIn(t.app, '', 'ann', PASSWORD);
    const settings = await t.app.inject({ url: '/workspace/settings', cookies: jar });
    const asked = await t.app.inject({
      method: 'POST',
      url: '/workspace/settings/generate',
      cookies: jar,
      payload: { _csrf: tokenIn(settings.body) },
    });
    expect(asked.statusCode).toBe(303);
    expect(asked.headers.location).toBe('/workspace/settings/generate');
    const confirm = await t.app.inject({ url: '/workspace/settings/generate', cookies: jar });
    expect(confirm.body).toContain('Your current key will keep working for 1 hour, then stop.');
    const before = Date.now();
    const posted = await t.app.inject({
      method: 'POST',
      url: '/workspace/settings/generate/confirm',
      cookies: jar,
      payload: { _csrf: tokenIn(confirm.body) },
    });
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe('/workspace/settings');
    const done = await t.app.inject({ url: '/workspace/settings', cookies: jar });
    expect(done.statusCode).toBe(200);
    const until = Date.parse(/<time id="old-key-until" datetime="([^"]+)"/.exec(done.body)?.[1] ?? '');
    expect(until - before).toBeGreaterThanOrEqual(3600_000 - 1000);
    expect(until - before).toBeLessThanOrEqual(3600_000 + 5000);
    expect(done.body).toContain('Your previous key keeps working until');
    const newKey = /<code class="key" id="api-key"[^>]*>([0-9a-f]{64})<\/code>/.exec(done.body)?.[1] as string;
    expect(newKey).toBeDefined();
    for (const key of [ANN_KEY, newKey]) {
      const response = await t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': key } });
      expect(response.statusCode).toBe(200);
    }
    // Past its time the retired key opens nothing.
    const digest = digestApiKey(t.keys, ANN_KEY);
    expect((await t.store.accountByRetiredKeyDigest(digest, until - 1))?.account.username).toBe('ann');
    expect(await t.store.accountByRetiredKeyDigest(digest, until)).toBeUndefined();
  });

  it('ends a session left idle longer than the timeout, on the server', async () => {
    let now = Date.now();
    const sessions = createWorkspaceSessions(t.store, { idleMinutes: 30, maxHours: 12 }, () => now);
    const id = await sessions.start('idle');
    now += 29 * 60_000;
    expect((await sessions.resume(id))?.username).toBe('idle');
    now += 29 * 60_000;
    expect((await sessions.resume(id))?.username).toBe('idle');
    now += 30 * 60_000;
    expect(await sessions.resume(id)).toBeUndefined();
    now -= 30 * 60_000;
    // Gone from the store, not only refused.
    expect(await sessions.resume(id)).toBeUndefined();
  });

  it('imports and exports password hashes (never passwords); refuses a hash of unknown form', async () => {
    await expect(t.importLines([account('bad', { password_hash: 'plain text' })])).rejects.toThrow(
      'line 1: account: password_hash must be a bcrypt hash ($2y$, $2a$ or $2b$) or a $scrypt$ hash this service wrote',
    );
    const exported = await runCli(['export'], { cwd: t.dir, env: cleanEnv({ ...t.env }) });
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const ann = lines.find((line) => line.username === 'ann');
    expect(ann.password_hash).toBe(await t.store.passwordHash('ann'));
    expect(ann.password_hash).toMatch(/^\$scrypt\$/);
    expect(exported.stdout).not.toContain(PASSWORD);
  });

  it('npm run cli -- accounts set-password reads one line from standard input', async () => {
    const env = cleanEnv({ ...t.env });
    const set = await runCli(['accounts', 'set-password', 'idle'], { cwd: t.dir, env, input: 'brand new secret\n' });
    expect(set).toEqual({ code: 0, stdout: '', stderr: 'The password of "idle" was set.\n' });
    const hash = (await t.store.passwordHash('idle')) as string;
    expect(checkPasswordSync('brand new secret', hash)).toEqual({ matches: true, needsRehash: false });
    const short = await runCli(['accounts', 'set-password', 'idle'], { cwd: t.dir, env, input: 'short\n' });
    expect(short).toEqual({
      code: 1,
      stdout: '',
      stderr: 'the password must have at least 8 characters; nothing was changed\n',
    });
    const nobody = await runCli(['accounts', 'set-password', 'nobody'], { cwd: t.dir, env, input: 'whatever-123\n' });
    expect(nobody).toEqual({ code: 1, stdout: '', stderr: 'no account named "nobody"\n' });
  });
});

describe('workspace under a variant whose base names a host', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      configFile: {
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD' },
          { lang: 'pt', baseUrl: 'https://loja.example.com.br/', currency: 'USD' },
        ],
      },
      lines: [account('ann', { password_hash: await hashPassword(PASSWORD) })],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the same path in the language of the host', async () => {
    const pt = await t.app.inject({ url: '/login', headers: { host: 'loja.example.com.br' } });
    expect(pt.statusCode).toBe(200);
    expect(pt.body).toContain('<html lang="pt-BR">');
    expect(pt.body).toContain('<button type="submit" class="button primary">Entrar</button>');
    const en = await t.app.inject({ url: '/login', headers: { host: 'other.example.com' } });
    expect(en.body).toContain('<html lang="en">');
    const jar: Jar = {};
    const form = await t.app.inject({ url: '/login', headers: { host: 'loja.example.com.br' } });
    keep(jar, form);
    const login = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { host: 'loja.example.com.br' },
      cookies: jar,
      payload: { _csrf: tokenIn(form.body), username: 'ann', password: PASSWORD },
    });
    expect(login.statusCode).toBe(303);
    keep(jar, login);
    const settings = await t.app.inject({
      url: '/workspace/settings',
      headers: { host: 'loja.example.com.br' },
      cookies: jar,
    });
    expect(settings.body).toContain('<h2 id="api-key-heading">Chave de API</h2>');
    // The example calls the variant where the seller reaches it: its host.
    expect(settings.body).toContain('curl -X POST &#39;http://loja.example.com.br/api/purchases/validation&#39;');
  });
});

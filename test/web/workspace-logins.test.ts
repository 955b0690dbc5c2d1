import { Readable, Writable } from 'node:stream';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordCommand } from '../../src/cli/set-password-command.js';
import { hashCost } from '../../src/domain/password-hash-format.js';
import { createLimits } from '../../src/limits/limits.js';
import { checkCosts, createPasswordChecker, PasswordChecksBusyError } from '../../src/passwords/password-checker.js';
import { checkPasswordSync, hashLike, hashPassword } from '../../src/passwords/password-hash.js';
import { createLoginAttempts } from '../../src/web/login-attempts.js';
import { createWorkspaceSessions } from '../../src/web/workspace-sessions.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { type Jar, keep, logIn, tokenIn } from './workspace-forms.js';

/**
 * Logins and sessions under attack (issue 20): budgets under concurrency, lockouts per account
 * and client, password checks off the event loop with capped costs, sessions that end with a
 * password change or an absolute lifetime, CSRF secrets bound to the session, Post/Redirect/Get.
 */

const PASSWORD = 'a long enough password';
const NEW_PASSWORD = 'another long password';

const account = (username: string, fields: Record<string, unknown> = {}) => ({
  type: 'account',
  username,
  email: `${username}@example.com`,
  registered_at: '2023-01-02T03:04:05Z',
  ...fields,
});

/** A fresh login form for each attempt (its own CSRF cookie and token), as separate browsers would. */
async function loginForms(t: TestApp, count: number, remoteAddress: string) {
  const forms: { jar: Jar; token: string }[] = [];
  for (let n = 0; n < count; n++) {
    const form = await t.app.inject({ url: '/login', remoteAddress });
    forms.push({ jar: keep({}, form), token: tokenIn(form.body) });
  }
  return forms;
}

/** How many answers had each status. */
function statusCounts(codes: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const code of codes) counts[code] = (counts[code] ?? 0) + 1;
  return counts;
}

describe.each(TEST_STORES)('workspace logins and sessions (%s)', (kind) => {
  let t: TestApp;
  const ANN_KEY = 'ann-key-0123456789abcdef';

  beforeAll(async () => {
    const hash = await hashPassword(PASSWORD);
    t = await createTestApp(kind, {
      configFile: {
        keyRotationGraceSeconds: 3600,
        workspace: { loginAttempts: { perAccount: 5, perClient: 60, windowSeconds: 900 } },
      },
      lines: [
        account('ann', { api_key: ANN_KEY, password_hash: hash }),
        account('mallory', { password_hash: hash }),
        ...['racer', 'locked', 'target', 'changer', 'imported', 'pat', 'eve', 'strong'].map((name) =>
          account(name, { password_hash: hash }),
        ),
      ],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('item 1: 40 concurrent wrong passwords, each with its own form, get exactly the budget of 401s', async () => {
    const forms = await loginForms(t, 40, '198.51.100.1');
    const answers = await Promise.all(
      forms.map(({ jar, token }) =>
        t.app.inject({
          method: 'POST',
          url: '/login',
          cookies: jar,
          remoteAddress: '198.51.100.1',
          payload: { _csrf: token, username: 'racer', password: 'wrong password' },
        }),
      ),
    );
    expect(statusCounts(answers.map((answer) => answer.statusCode))).toEqual({ 401: 5, 429: 35 });
  });

  it('item 1: the budget is the account: locked by its username, 100 concurrent tries by its email all get 429', async () => {
    for (let n = 0; n < 5; n++) {
      expect((await logIn(t.app, '', 'locked', 'wrong password', {}, '198.51.100.2')).response.statusCode).toBe(401);
    }
    const forms = await loginForms(t, 100, '198.51.100.2');
    const answers = await Promise.all(
      forms.map(({ jar, token }) =>
        t.app.inject({
          method: 'POST',
          url: '/login',
          cookies: jar,
          remoteAddress: '198.51.100.2',
          payload: { _csrf: token, username: 'LOCKED@example.com', password: PASSWORD },
        }),
      ),
    );
    expect(statusCounts(answers.map((answer) => answer.statusCode))).toEqual({ 429: 100 });
    expect(answers.every((answer) => answer.cookies.every((cookie) => !cookie.name.startsWith('mp_session')))).toBe(
      true,
    );
  });

  it('item 8: failures from one address do not lock the seller out from another; the per-client budget spans accounts', async () => {
    const stranger = '203.0.113.7';
    const forms = await loginForms(t, 10, stranger);
    const answers = await Promise.all(
      forms.map(({ jar, token }) =>
        t.app.inject({
          method: 'POST',
          url: '/login',
          cookies: jar,
          remoteAddress: stranger,
          payload: { _csrf: token, username: 'target', password: 'guess' },
        }),
      ),
    );
    expect(statusCounts(answers.map((answer) => answer.statusCode))).toEqual({ 401: 5, 429: 5 });
    // The seller, from their own address, is not locked out.
    const seller = await logIn(t.app, '', 'target', PASSWORD, {}, '192.0.2.44');
    expect(seller.response.statusCode).toBe(303);
    expect(seller.response.headers.location).toBe('/workspace/settings');
    // The stranger still is, even with the right password.
    expect((await logIn(t.app, '', 'target', PASSWORD, {}, stranger)).response.statusCode).toBe(429);
  });

  it('item 6: a password set through the CLI ends the sessions opened before it', async () => {
    const { jar } = await logIn(t.app, '', 'changer', PASSWORD);
    expect((await t.app.inject({ url: '/workspace/settings', cookies: jar })).statusCode).toBe(200);
    const said: string[] = [];
    const messages = new Writable({
      write(chunk, _encoding, done) {
        said.push(String(chunk));
        done();
      },
    });
    const input = Readable.from([`${NEW_PASSWORD}\n`]) as unknown as NodeJS.ReadStream;
    expect(await setPasswordCommand(t.store, 'changer', input, messages)).toBe(true);
    expect(said.join('')).toBe('The password of "changer" was set.\n');
    const after = await t.app.inject({ url: '/workspace/settings', cookies: jar });
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toBe('/login?ended=1');
    // The new password opens a new session.
    expect((await logIn(t.app, '', 'changer', NEW_PASSWORD)).response.statusCode).toBe(303);
  });

  it('item 6: an import that changes the password hash ends the sessions; one that keeps it does not', async () => {
    const { jar } = await logIn(t.app, '', 'imported', PASSWORD);
    const same = (await t.store.passwordHash('imported')) as string;
    await t.importLines([account('imported', { password_hash: same })]);
    expect((await t.app.inject({ url: '/workspace/settings', cookies: jar })).statusCode).toBe(200);
    await t.importLines([account('imported', { password_hash: await hashPassword(NEW_PASSWORD) })]);
    const after = await t.app.inject({ url: '/workspace/settings', cookies: jar });
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toBe('/login?ended=1');
  });

  it('item 6: a session ends at its absolute lifetime however busy, and idle ones as before', async () => {
    let now = Date.now();
    const sessions = createWorkspaceSessions(t.store, { idleMinutes: 30, maxHours: 12 }, () => now);
    const id = await sessions.start('pat');
    for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
      now += 20 * 60_000;
      expect((await sessions.resume(id))?.username, `${minutes} minutes`).toBe('pat');
    }
    now += 20 * 60_000;
    expect(await sessions.resume(id)).toBeUndefined();
    now -= 60 * 60_000;
    // Gone from the store, not only refused.
    expect(await sessions.resume(id)).toBeUndefined();
  });

  it("item 7: another browser's CSRF cookie and token do not pass with the victim's session; a login renews the secret", async () => {
    const victim = (await logIn(t.app, '', 'ann', PASSWORD)).jar;
    const attacker = (await logIn(t.app, '', 'mallory', PASSWORD)).jar;
    const attackerPage = await t.app.inject({ url: '/workspace/settings', cookies: attacker });
    const attackerToken = tokenIn(attackerPage.body);
    expect(attackerToken).not.toBe('');
    // The attacker's own token works for the attacker.
    const own = await t.app.inject({
      method: 'POST',
      url: '/workspace/settings/show',
      cookies: attacker,
      payload: { _csrf: attackerToken },
    });
    expect(own.statusCode).toBe(303);
    // With the victim's session cookie (and the attacker's CSRF cookie): refused, nothing shown.
    const forged = await t.app.inject({
      method: 'POST',
      url: '/workspace/settings/show',
      cookies: { ...attacker, mp_session: victim.mp_session as string },
      payload: { _csrf: attackerToken },
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('This form has expired');
    expect(forged.body).not.toContain(ANN_KEY);
    // A pre-session token (the login form's) is no token for a session's forms either.
    const loginForm = await t.app.inject({ url: '/login', cookies: { mp_csrf: victim.mp_csrf as string } });
    const preSession = await t.app.inject({
      method: 'POST',
      url: '/workspace/settings/show',
      cookies: { ...victim, ...keep({}, loginForm) },
      payload: { _csrf: tokenIn(loginForm.body) },
    });
    expect(preSession.statusCode).toBe(403);
    // Renewed at login: a token of the previous session is refused in the next one.
    const before = tokenIn((await t.app.inject({ url: '/workspace/settings', cookies: victim })).body);
    const again = (await logIn(t.app, '', 'ann', PASSWORD)).jar;
    const stale = await t.app.inject({
      method: 'POST',
      url: '/workspace/settings/show',
      cookies: again,
      payload: { _csrf: before },
    });
    expect(stale.statusCode).toBe(403);
  });

  it('item 9 and 3: Generate is Post/Redirect/Get; the new key shows once; "end the old key now" stops it at once', async () => {
    for (const [base, label] of [
      ['', 'End the old key now'],
      ['/pt', 'Encerrar a chave antiga agora'],
    ] as const) {
      const { jar } = await logIn(t.app, base, 'eve', PASSWORD);
      const oldKey = await rotateThroughPages(base, jar, { endOldKeyNow: false, label });
      const newKey = await rotateThroughPages(base, jar, { endOldKeyNow: true, label });
      expect(newKey).not.toBe(oldKey);
      // Ended now: the key replaced with the box ticked opens nothing, though the grace is an hour.
      const old = await t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': oldKey } });
      expect(old.statusCode).toBe(401);
      const current = await t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': newKey } });
      expect(current.statusCode).toBe(200);
    }
  });

  /** Generate → confirm (GET) → confirm (POST) → 303 → the settings page with the new key once; a reload shows it masked. */
  async function rotateThroughPages(
    base: string,
    jar: Jar,
    { endOldKeyNow, label }: { endOldKeyNow: boolean; label: string },
  ): Promise<string> {
    const settings = await t.app.inject({ url: `${base}/workspace/settings`, cookies: jar });
    const asked = await t.app.inject({
      method: 'POST',
      url: `${base}/workspace/settings/generate`,
      cookies: jar,
      payload: { _csrf: tokenIn(settings.body) },
    });
    expect(asked.statusCode).toBe(303);
    expect(asked.headers.location).toBe(`${base}/workspace/settings/generate`);
    const confirm = await t.app.inject({ url: `${base}/workspace/settings/generate`, cookies: jar });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(
      `<input id="end-old-key" name="end_old_key" type="checkbox" value="1">\n      <label for="end-old-key">${label}</label>`,
    );
    const posted = await t.app.inject({
      method: 'POST',
      url: `${base}/workspace/settings/generate/confirm`,
      cookies: jar,
      payload: { _csrf: tokenIn(confirm.body), ...(endOldKeyNow ? { end_old_key: '1' } : {}) },
    });
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe(`${base}/workspace/settings`);
    const shown = await t.app.inject({ url: `${base}/workspace/settings`, cookies: jar });
    const newKey = /<code class="key" id="api-key" data-revealed="true"[^>]*>([0-9a-f]{64})<\/code>/.exec(
      shown.body,
    )?.[1] as string;
    expect(newKey).toMatch(/^[0-9a-f]{64}$/);
    expect(shown.body.includes('<time id="old-key-until" datetime=')).toBe(!endOldKeyNow);
    // A reload: the same page, masked; no other key was made.
    const reload = await t.app.inject({ url: `${base}/workspace/settings`, cookies: jar });
    expect(reload.statusCode).toBe(200);
    expect(reload.body).not.toContain('data-revealed');
    expect(reload.body).not.toContain(newKey);
    return newKey;
  }

  it('item 9: Show is Post/Redirect/Get too: the key once, a reload masks it', async () => {
    const { jar } = await logIn(t.app, '', 'ann', PASSWORD);
    const settings = await t.app.inject({ url: '/workspace/settings', cookies: jar });
    expect(settings.body).not.toContain('data-revealed');
    const posted = await t.app.inject({
      method: 'POST',
      url: '/workspace/settings/show',
      cookies: jar,
      payload: { _csrf: tokenIn(settings.body) },
    });
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe('/workspace/settings');
    const shown = await t.app.inject({ url: '/workspace/settings', cookies: jar });
    expect(shown.body).toMatch(/<code class="key" id="api-key" data-revealed="true"[^>]*>[^<]+<\/code>/);
    const reload = await t.app.inject({ url: '/workspace/settings', cookies: jar });
    expect(reload.body).not.toContain('data-revealed');
  });

  it('item 4: a stored hash beyond the caps matches nothing at login, even with the right password', async () => {
    const strong = bcrypt.hashSync(PASSWORD, 4).replace(/^\$2b\$04\$/, '$2y$13$');
    expect(await t.store.setPasswordHash('strong', strong)).toBe(true);
    expect((await logIn(t.app, '', 'strong', PASSWORD)).response.statusCode).toBe(401);
  });

  it('item 4: the import refuses hashes that cost more than the caps, with a line error', async () => {
    const salt = 'AAAAAAAAAAAAAAAAAAAAAA';
    const key = 'A'.repeat(43);
    const cases = [
      [bcrypt.hashSync('x', 4).replace('$2b$04$', '$2y$13$'), 'bcrypt cost at most 12'],
      [bcrypt.hashSync('x', 4).replace('$2b$04$', '$2y$31$'), 'bcrypt cost at most 12'],
      [`$scrypt$ln=17,r=8,p=1$${salt}$${key}`, 'scrypt ln at most 16, with r=8 and p=1'],
      [`$scrypt$ln=20,r=8,p=1$${salt}$${key}`, 'scrypt ln at most 16, with r=8 and p=1'],
    ] as const;
    for (const [hash, cap] of cases) {
      await expect(t.importLines([account('capped', { password_hash: hash })])).rejects.toThrow(
        `line 1: account: password_hash costs more than this service checks (${cap})`,
      );
    }
    await expect(
      t.importLines([account('capped', { password_hash: `$scrypt$ln=15,r=16,p=1$${salt}$${key}` })]),
    ).rejects.toThrow('line 1: account: password_hash: a $scrypt$ hash must have ln from 10 to 16, r=8 and p=1');
    expect(await t.store.accountByUsername('capped')).toBeUndefined();
  });
});

describe('a password set through the admin API', () => {
  let t: TestApp;
  const TOKEN = 'admin-token-0123456789abcdef-0123456789';

  beforeAll(async () => {
    t = await createTestApp({
      env: { ADMIN_TOKEN: TOKEN },
      lines: [account('ada', { password_hash: await hashPassword(PASSWORD) })],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('item 6: an admin import with a new password hash ends the sessions opened before it', async () => {
    const { jar } = await logIn(t.app, '', 'ada', PASSWORD);
    expect((await t.app.inject({ url: '/workspace/settings', cookies: jar })).statusCode).toBe(200);
    const imported = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/import',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' },
      payload: `${JSON.stringify(account('ada', { password_hash: await hashPassword(NEW_PASSWORD) }))}\n`,
    });
    expect(imported.statusCode).toBe(200);
    const after = await t.app.inject({ url: '/workspace/settings', cookies: jar });
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toBe('/login?ended=1');
    expect((await logIn(t.app, '', 'ada', NEW_PASSWORD)).response.statusCode).toBe(303);
  });
});

describe('password checks off the event loop', () => {
  let t: TestApp;
  let origin: string;
  const KEY = 'api-key-of-bea-0123456789';
  const BCRYPT_PASSWORD = 'laravel-password';
  const SELLERS = 6;

  beforeAll(async () => {
    // The highest cost an import may bring: each check holds a CPU for a good part of a second.
    const hash = bcrypt.hashSync(BCRYPT_PASSWORD, 12).replace(/^\$2b\$/, '$2y$');
    t = await createTestApp({
      configFile: { workspace: { loginAttempts: { perAccount: 5, perClient: 100, windowSeconds: 900 } } },
      lines: [
        account('bea', { api_key: KEY }),
        ...Array.from({ length: SELLERS }, (_, n) => account(`laravel${n}`, { password_hash: hash })),
      ],
    });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A login form fetched over the wire: its CSRF cookie and token. */
  async function formOverHttp() {
    const page = await fetch(`${origin}/login`);
    const cookie = page.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    return { cookie, token: tokenIn(await page.text()) };
  }

  it('answers API requests one after another while bcrypt logins run, before any of them is answered', async () => {
    const forms = await Promise.all(Array.from({ length: SELLERS }, () => formOverHttp()));
    const events: string[] = [];
    const logins = forms.map(({ cookie, token }, n) =>
      fetch(`${origin}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, username: `laravel${n}`, password: 'wrong password' }).toString(),
      }).then(async (response) => {
        await response.arrayBuffer();
        events.push(`login ${response.status}`);
      }),
    );
    // Ten API requests in a row, each sent when the one before was answered.
    for (let n = 0; n < 10; n++) {
      const api = await fetch(`${origin}/api/account/details`, { headers: { 'x-api-key': KEY } });
      await api.arrayBuffer();
      events.push(`api ${api.status}`);
    }
    await Promise.all(logins);
    expect(events).toEqual([...Array.from({ length: 10 }, () => 'api 200'), ...forms.map(() => 'login 401')]);
  });
});

describe('the password checker', () => {
  it('runs the same checks for an unknown user as for an account of any hash kind: the kind and cost of each', async () => {
    const bcrypt4 = bcrypt.hashSync('bcrypt-password', 4).replace(/^\$2b\$/, '$2y$');
    const scrypt10 = hashLike('scrypt:ln=10,r=8,p=1');
    const seen: (readonly string[])[] = [];
    const checker = createPasswordChecker({
      threads: 1,
      storedHashes: async () => [bcrypt4, scrypt10, bcrypt4],
      onCheck: (costs) => seen.push(costs),
    });
    try {
      const all = ['bcrypt:4', 'scrypt:ln=10,r=8,p=1', 'scrypt:ln=15,r=8,p=1'];
      expect(await checker.verify('bcrypt-password', bcrypt4)).toEqual({ matches: true, needsRehash: true });
      expect(await checker.verify('wrong-password', bcrypt4)).toEqual({ matches: false, needsRehash: false });
      const current = await hashPassword('scrypt-password');
      expect(await checker.verify('scrypt-password', current)).toEqual({ matches: true, needsRehash: false });
      // An unknown user (no hash), and an account whose hash is of no kind checked here.
      await checker.verifyAgainstDummy('anything-at-all');
      expect(await checker.verify('plain', 'plain')).toEqual({ matches: false, needsRehash: false });
      expect(seen).toEqual([all, all, all, all, all]);

      // A kind met later (an import since the start) is run by every check from then on, unknown users' too.
      const bcrypt5 = bcrypt.hashSync('later-password', 5);
      expect(await checker.verify('later-password', bcrypt5)).toEqual({ matches: true, needsRehash: true });
      await checker.verifyAgainstDummy('anything-at-all');
      const more = ['bcrypt:4', 'bcrypt:5', 'scrypt:ln=10,r=8,p=1', 'scrypt:ln=15,r=8,p=1'];
      expect(seen.slice(5)).toEqual([more, more]);
    } finally {
      await checker.close();
    }
  });

  it('refuses a check at once when its queue is full, rather than piling up', async () => {
    const checker = createPasswordChecker({ threads: 1, maxQueue: 1 });
    try {
      const hash = bcrypt.hashSync('secret-123', 10);
      const running = checker.verify('secret-123', hash);
      const queued = checker.verify('secret-124', hash);
      await expect(checker.verify('secret-125', hash)).rejects.toBeInstanceOf(PasswordChecksBusyError);
      expect(await running).toEqual({ matches: true, needsRehash: true });
      expect(await queued).toEqual({ matches: false, needsRehash: false });
    } finally {
      await checker.close();
    }
  });

  it('item 5: checks run against a hash of each kind and cost stored, and of the current scrypt', () => {
    const laravel = bcrypt.hashSync('x', 4).replace(/^\$2b\$04\$/, '$2y$10$');
    expect(checkCosts([laravel, laravel, `$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$${'A'.repeat(43)}`])).toEqual([
      'bcrypt:10',
      'scrypt:ln=15,r=8,p=1',
    ]);
    expect(checkCosts([])).toEqual(['scrypt:ln=15,r=8,p=1']);
    // A hash this service does not check (past the caps, of no known kind) adds no kind.
    expect(checkCosts([bcrypt.hashSync('x', 4).replace(/^\$2b\$04\$/, '$2y$13$'), 'plain'])).toEqual([
      'scrypt:ln=15,r=8,p=1',
    ]);
    expect(hashCost(hashLike('bcrypt:10'))).toBe('bcrypt:10');
    expect(hashCost(hashLike('scrypt:ln=14,r=8,p=1'))).toBe('scrypt:ln=14,r=8,p=1');
    // Nothing stored, or a kind past the caps: the current scrypt.
    expect(hashCost(hashLike(undefined))).toBe('scrypt:ln=15,r=8,p=1');
    expect(hashCost(hashLike('bcrypt:14'))).toBe('scrypt:ln=15,r=8,p=1');
  });

  it('item 4: a hash beyond the caps matches nothing', async () => {
    const over = bcrypt.hashSync('secret-123', 4).replace(/^\$2b\$04\$/, '$2b$13$');
    expect(checkPasswordSync('secret-123', over)).toEqual({ matches: false, needsRehash: false });
  });
});

describe('login attempts (the budgets themselves)', () => {
  it('item 8: each lockout of an account and client halves its next windows, down to one try', async () => {
    let now = 1_000_000_000_000;
    const limits = createLimits({ logger: { info: () => {}, warn: () => {} }, now: () => now });
    try {
      const attempts = createLoginAttempts(limits, { perAccount: 4, perClient: 1000, windowSeconds: 60 });
      const allowedInWindow = async () => {
        let allowed = 0;
        for (;;) {
          const attempt = await attempts.admit('ann', '192.0.2.1');
          if (!attempt.admitted) return allowed;
          allowed += 1;
          await attempt.settle('failed');
        }
      };
      const windows: number[] = [];
      for (let window = 0; window < 4; window++) {
        windows.push(await allowedInWindow());
        now += 60_000;
      }
      expect(windows).toEqual([4, 2, 1, 1]);
      // Another client, or the same client on another account, starts afresh.
      expect((await attempts.admit('ann', '192.0.2.2')).admitted).toBe(true);
      expect((await attempts.admit('bob', '192.0.2.1')).admitted).toBe(true);
      // A success gives its place back.
      const held = await attempts.admit('carl', '192.0.2.1');
      expect(held.admitted).toBe(true);
      if (held.admitted) await held.settle('succeeded');
    } finally {
      await limits.close();
    }
  });
});

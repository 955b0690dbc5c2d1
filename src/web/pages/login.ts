import { Type } from '@sinclair/typebox';
import { clientIdOf } from '../../limits/client-id.js';
import { PasswordChecksBusyError } from '../../passwords/password-checker.js';
import { hashPassword, type PasswordCheck } from '../../passwords/password-hash.js';
import { loginGate } from '../login-gate.js';
import { FormText } from '../request-parts.js';
import type { PageKit } from './page-kit.js';

const MAX_LOGIN_LENGTH = 320;
const MAX_PASSWORD_LENGTH = 1024;
/** Retry-After when too many logins are being checked at once. */
const BUSY_RETRY_SECONDS = 2;

/** A notice the login page was sent to show: present (with any value) or not. */
const Notice = Type.Transform(Type.Unknown())
  .Decode((value): boolean => value !== undefined)
  .Encode((value) => (value ? '1' : undefined));

/** Where a redirect to the login page says why it came: logged out, the session ended, the code's time ran out. */
const LoginQuery = Type.Object({ logged_out: Notice, ended: Notice, expired: Notice });

/** The login form: a username (or email) and a password; a field left blank is said beside it. */
const LoginForm = Type.Object({ username: FormText, password: FormText });

/**
 * `{base}/login`: the form, and the password check behind it: the login budgets, the same time
 * for an unknown account, MarketBob's login gate, then a session or the two-factor code's page.
 */
export function loginPage(kit: PageKit): void {
  const { store } = kit.deps;
  const { attempts, passwords, pending } = kit.logins;
  const appKey = kit.deps.config.marketbob?.appKey;

  kit.page({
    method: 'GET',
    url: kit.urls.login,
    schema: { querystring: LoginQuery },
    handler: async (request, reply, t) => {
      const sessionId = request.cookies[kit.cookies.session];
      if (sessionId && (await kit.sessions.resume(sessionId)) !== undefined) {
        return reply.redirect(kit.urls.settings, 303);
      }
      const { query } = request;
      const notice = query.logged_out
        ? t.login.loggedOut
        : query.ended
          ? t.login.sessionEnded
          : query.expired
            ? t.login.codeExpired
            : undefined;
      return kit.renderPage(reply, 200, 'login', {
        ...kit.context(request, reply, t),
        title: t.login.title,
        username: '',
        notice,
      });
    },
  });

  kit.page({
    method: 'POST',
    url: kit.urls.login,
    schema: { body: LoginForm },
    preSessionCsrf: true,
    handler: async (request, reply, t) => {
      const login = request.body.username.trim().slice(0, MAX_LOGIN_LENGTH);
      const password = request.body.password;
      const again = (status: number, error: string) =>
        kit.renderPage(reply, status, 'login', {
          ...kit.context(request, reply, t),
          title: t.login.title,
          username: login,
          error,
        });
      // The form is `novalidate` (the browser's own bubbles speak its language, not the page's):
      // a blank field is said here, beside it. No password is checked, so no attempt is counted.
      if (login === '' || password === '') {
        return kit.renderPage(reply, 400, 'login', {
          ...kit.context(request, reply, t),
          title: t.login.title,
          username: login,
          missing: { username: login === '', password: password === '' },
        });
      }
      const account = (await store.accountByUsername(login)) ?? (await store.accountByEmail(login));
      // Read for every account before the password is checked: a buyer refused after a right
      // password takes the time of a wrong one (see loginGate).
      const facts = account && (await store.marketbobLogin(account.username));
      // The budgets are taken before the password is checked, by the account (its username and
      // email are one) and the client; see login-attempts.ts.
      const attempt = await attempts.admit(account?.username ?? login, clientIdOf(request.ip));
      if (!attempt.admitted) {
        reply.header('retry-after', String(attempt.retryAfter));
        return again(429, t.login.tooManyAttempts(Math.ceil(attempt.retryAfter / 60)));
      }
      let check: PasswordCheck | undefined;
      try {
        const hash = account && (await store.passwordHash(account.username));
        if (hash === undefined || password.length > MAX_PASSWORD_LENGTH) {
          // No account, or no password: as long as a real check, and the same answer.
          await passwords.verifyAgainstDummy(password);
        } else {
          check = await passwords.verify(password, hash);
        }
      } catch (error) {
        await attempt.settle('succeeded');
        if (!(error instanceof PasswordChecksBusyError)) throw error;
        request.log.warn({ reqId: request.id }, 'login refused: too many password checks waiting');
        reply.header('retry-after', String(BUSY_RETRY_SECONDS));
        return again(503, t.login.busy);
      }
      const gate = loginGate(facts, appKey);
      // A MarketBob buyer has no seller workspace: the answer (and its count) of a wrong password.
      if (!account || !check?.matches || gate.kind === 'notAuthor') {
        await attempt.settle('failed');
        return again(401, t.login.wrongCredentials);
      }
      await attempt.settle('succeeded');
      if (account.status !== 'active') return again(403, t.login.suspended);
      if (gate.kind === 'marketplaceOnly') {
        request.log.warn(
          { reqId: request.id, username: account.username, reason: gate.reason },
          'login refused: two-factor login on, and its secret cannot be read here',
        );
        return again(403, t.login.useMarketplace);
      }
      // Before the session starts: the session is bound to the hash it was opened with.
      if (check.needsRehash) await store.setPasswordHash(account.username, await hashPassword(password));
      if (gate.kind === 'code') {
        const hash = await store.passwordHash(account.username);
        if (hash === undefined) return again(401, t.login.wrongCredentials);
        reply.setCookie(
          kit.cookies.pending,
          pending.issue(account.username, hash, kit.prefix),
          kit.cookies.pendingOptions(request),
        );
        return reply.redirect(kit.urls.code, 303);
      }
      return kit.startSession(request, reply, account.username);
    },
  });
}

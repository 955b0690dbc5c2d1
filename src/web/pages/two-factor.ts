import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientIdOf } from '../../limits/client-id.js';
import { loginGate } from '../login-gate.js';
import { FormText } from '../request-parts.js';
import type { WorkspaceTexts } from '../texts/workspace-texts.js';
import { codeStep, normalizeCode } from '../two-factor-codes.js';
import type { PageKit } from './page-kit.js';

/** The code's form: the six digits of the seller's authenticator app. */
const CodeForm = Type.Object({ code: FormText });

/**
 * `{base}/login/code`: the second step of a login for a seller with MarketBob's two-factor login
 * on. The right password left a pending login (a cookie, not a session); a right code, used once,
 * starts the session.
 */
export function twoFactorPage(kit: PageKit): void {
  const { store } = kit.deps;
  const { attempts, pending: pendingLogins } = kit.logins;
  const appKey = kit.deps.config.marketbob?.appKey;

  /** The pending login of this browser's cookie, or undefined once the reply sends it back to the login page. */
  const pendingOf = async (request: FastifyRequest, reply: FastifyReply) => {
    const cookie = request.cookies[kit.cookies.pending];
    const pending = await pendingLogins.read(cookie, kit.prefix, (username) => store.passwordHash(username));
    if (pending !== undefined) return pending;
    if (cookie !== undefined) reply.clearCookie(kit.cookies.pending, kit.cookies.pendingOptions(request));
    reply.redirect(`${kit.urls.login}?expired=1`, 303);
    return undefined;
  };

  const codePage = (
    request: FastifyRequest,
    reply: FastifyReply,
    t: WorkspaceTexts,
    status: number,
    shown: { error?: string; missing?: boolean } = {},
  ) =>
    kit.renderPage(reply, status, 'login-code', {
      ...kit.context(request, reply, t),
      title: t.twoFactor.title,
      ...shown,
    });

  kit.page({
    method: 'GET',
    url: kit.urls.code,
    handler: async (request, reply, t) => {
      if ((await pendingOf(request, reply)) === undefined) return reply;
      return codePage(request, reply, t, 200);
    },
  });

  kit.page({
    method: 'POST',
    url: kit.urls.code,
    schema: { body: CodeForm },
    preSessionCsrf: true,
    handler: async (request, reply, t) => {
      const pending = await pendingOf(request, reply);
      if (pending === undefined) return reply;
      const typed = request.body.code;
      // As on the login form: a blank field is said beside it, and no attempt is counted.
      if (typed.trim() === '') return codePage(request, reply, t, 400, { missing: true });
      const account = await store.accountByUsername(pending.username);
      const gate = loginGate(account && (await store.marketbobLogin(account.username)), appKey);
      if (account === undefined || gate.kind === 'notAuthor') {
        reply.clearCookie(kit.cookies.pending, kit.cookies.pendingOptions(request));
        return reply.redirect(`${kit.urls.login}?expired=1`, 303);
      }
      const attempt = await attempts.admit(account.username, clientIdOf(request.ip));
      if (!attempt.admitted) {
        reply.header('retry-after', String(attempt.retryAfter));
        return codePage(request, reply, t, 429, {
          error: t.login.tooManyAttempts(Math.ceil(attempt.retryAfter / 60)),
        });
      }
      let step: number | undefined;
      try {
        if (gate.kind === 'code') {
          const code = normalizeCode(typed);
          step = code === undefined ? undefined : codeStep(gate.secret, code, Date.now());
          // Used once: the step is taken in the store, shared by every process and instance.
          if (step !== undefined && !(await store.claimLoginStep(gate.userId, step))) step = undefined;
        }
      } catch (error) {
        await attempt.settle('succeeded');
        throw error;
      }
      if (gate.kind === 'code' && step === undefined) {
        await attempt.settle('failed');
        return codePage(request, reply, t, 401, { error: t.twoFactor.wrongCode });
      }
      await attempt.settle('succeeded');
      reply.clearCookie(kit.cookies.pending, kit.cookies.pendingOptions(request));
      // Suspended, or the secret no longer readable, since the password step.
      if (account.status !== 'active' || gate.kind === 'marketplaceOnly') {
        return kit.renderPage(reply, 403, 'login', {
          ...kit.context(request, reply, t),
          title: t.login.title,
          username: '',
          error: account.status !== 'active' ? t.login.suspended : t.login.useMarketplace,
        });
      }
      // Two-factor login turned off meanwhile (`open`): the password was right, the session starts.
      return kit.startSession(request, reply, account.username);
    },
  });
}

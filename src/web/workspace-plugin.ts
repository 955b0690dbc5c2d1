import { join } from 'node:path';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import { Type } from '@sinclair/typebox';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { createPasswordChecker } from '../passwords/password-checker.js';
import { classifyError, reportFailure } from '../server/error-classifier.js';
import { pathOf } from '../server/url-path.js';
import { pageChrome, pageSecurityHeaders } from './front-page.js';
import { createLoginAttempts } from './login-attempts.js';
import { packageRoot } from './package-root.js';
import { loginPage } from './pages/login.js';
import { logoutPage } from './pages/logout.js';
import { namedKeysPages } from './pages/named-keys.js';
import { newKeyPages } from './pages/new-key.js';
import type { Flash, PageContext, PageKit, SignedIn } from './pages/page-kit.js';
import { purchaseCodesPages } from './pages/purchase-codes.js';
import { settingsPages } from './pages/settings.js';
import { twoFactorPage } from './pages/two-factor.js';
import { webhooksPages } from './pages/webhooks.js';
import { createPendingLogins, PENDING_LOGIN_SECONDS } from './pending-logins.js';
import { decodePart, FormText, partsValidatorCompiler, type RouteOf } from './request-parts.js';
import { workspaceLanguages } from './texts/workspace-languages.js';
import type { WorkspaceTexts } from './texts/workspace-texts.js';
import { defaultBrand } from './workspace-brand.js';
import type { WorkspaceOptions } from './workspace-options.js';
import { createWorkspaceSessions } from './workspace-sessions.js';

export type { WorkspaceOptions } from './workspace-options.js';

const HTML = 'text/html; charset=utf-8';
/** Form bodies are a few short fields. */
const FORM_BODY_LIMIT = 16 * 1024;
/** Stored hashes read at start to pick the dummy hash's kind and cost. */
const HASH_SAMPLE_SIZE = 1000;

/** Every form of a signed-in page carries the session's CSRF token. */
const SessionForm = Type.Object({ _csrf: FormText });

/** The pages, each a file of pages/ that adds its routes with their schemas. */
const PAGES: readonly ((kit: PageKit) => void)[] = [
  loginPage,
  twoFactorPage,
  settingsPages,
  newKeyPages,
  namedKeysPages,
  purchaseCodesPages,
  webhooksPages,
  logoutPage,
];

const readFlash = (text: string | null): Flash | undefined => {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as Flash;
  } catch {
    return undefined;
  }
};

/** A date as the pages write it: in the page's language, in UTC (the server knows no seller's zone). */
const dateText = (t: WorkspaceTexts, at: Date) => ({
  iso: at.toISOString(),
  text: new Intl.DateTimeFormat(t.locale, { dateStyle: 'long', timeStyle: 'long', timeZone: 'UTC' }).format(at),
});

/**
 * The seller's workspace: `{base}/login` and `{base}/workspace/...` under every variant's base,
 * in its language; each page is a file of pages/ with the schemas of its routes. This plugin holds
 * what they share: server-rendered HTML (Eta, escaping by default), sessions in the store and
 * their cookies, CSRF tokens on every form, the login budgets and password checks, and its own
 * error and not-found pages; the JSON API is not touched.
 */
export const workspacePlugin: FastifyPluginAsync<WorkspaceOptions> = async (scope, options) => {
  const { config, store, keys, resolver, limits } = options;
  const root = packageRoot();
  const eta = new Eta({ views: join(root, 'web', 'views'), cache: true });
  const sessions = createWorkspaceSessions(store, {
    idleMinutes: config.workspace.sessionIdleMinutes,
    maxHours: config.workspace.sessionMaxHours,
  });
  const logins = {
    attempts: createLoginAttempts(limits, config.workspace.loginAttempts),
    // A right password of a seller with two-factor login waits for the code here: not a session.
    pending: createPendingLogins(keys.digestKey),
    // Checks in worker threads, a bounded queue; the dummy hash like most stored ones (read now).
    passwords: createPasswordChecker({
      storedHashes: () => store.passwordHashSample(HASH_SAMPLE_SIZE),
      onSampleError: (error) => scope.log.error({ err: error }, 'could not prepare the dummy password hash'),
    }),
  };
  scope.addHook('onClose', async () => logins.passwords.close());

  // Every route's params, query and form are TypeBox objects, checked and decoded before its handler.
  scope.setValidatorCompiler(partsValidatorCompiler);
  await scope.register(cookie);
  await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  const brand = config.workspace.brand ?? defaultBrand();
  // Every workspace response: never cached, never framed, no referrer, only our own scripts and styles.
  const securityHeaders = pageSecurityHeaders(brand);
  scope.addHook('onRequest', (_request, reply, done) => {
    reply.headers(securityHeaders);
    done();
  });

  const textsFor = (request: FastifyRequest) => {
    const { variant } = resolver.forPath(pathOf(request.url), request.host);
    return { t: workspaceLanguages[variant.config.lang], base: variant.config.prefix };
  };

  const renderPage = (reply: FastifyReply, status: number, view: string, data: PageContext & Record<string, unknown>) =>
    reply
      .code(status)
      .type(HTML)
      .send(eta.render(`./${view}`, { ...pageChrome(brand, resolver, reply.request, data.base), ...data }));

  scope.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const { t, base } = textsFor(request);
    const page = (status: number, title: string, text: string) =>
      renderPage(reply, status, 'message', { t, base, csrf: '', title, text });
    if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET') {
      return page(403, t.problems.csrfTitle, t.problems.csrfText);
    }
    const failure = classifyError(error);
    reportFailure(failure, { surface: 'workspace', reqId: request.id, log: request.log, metrics: undefined });
    if (failure.kind === 'serviceUnavailable')
      return page(503, t.problems.unavailableTitle, t.problems.unavailableText);
    if (failure.kind === 'internal') return page(500, t.problems.errorTitle, t.problems.errorText);
    return page(400, t.problems.badFormTitle, t.problems.badFormText);
  });

  for (const prefix of resolver.prefixes) {
    await scope.register(async (pages) => variantPages(pages, prefix));
  }

  /** The pages under one base path; the variant (and so the language) is picked per request, by host. */
  async function variantPages(pages: FastifyInstance, prefix: string): Promise<void> {
    const suffix = prefix.replace(/[^A-Za-z0-9]/g, '_');
    const sessionCookie = `mp_session${suffix}`;
    const pendingCookie = `mp_login${suffix}`;
    const cookiePath = prefix || '/';
    const urls = {
      login: `${prefix}/login`,
      code: `${prefix}/login/code`,
      settings: `${prefix}/workspace/settings`,
      purchaseCodes: `${prefix}/workspace/purchase-codes`,
      webhooks: `${prefix}/workspace/webhooks`,
      logout: `${prefix}/workspace/logout`,
    };

    await pages.register(csrf, {
      cookieKey: `mp_csrf${suffix}`,
      cookieOpts: { path: cookiePath, sameSite: 'strict', httpOnly: true },
    });
    await pages.register(fastifyStatic, {
      root: join(root, 'web', 'public'),
      prefix: `${prefix}/workspace/assets/`,
      decorateReply: false,
      index: false,
      cacheControl: false,
    });

    const cookieOptions = (request: FastifyRequest) => ({
      path: cookiePath,
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: request.protocol === 'https',
    });

    const pendingCookieOptions = (request: FastifyRequest) => ({
      path: cookiePath,
      httpOnly: true,
      sameSite: 'strict' as const,
      secure: request.protocol === 'https',
      maxAge: PENDING_LOGIN_SECONDS,
    });

    const textsOf = (request: FastifyRequest): WorkspaceTexts | undefined => {
      const variant = resolver.forPrefix(prefix, request.host);
      return variant && workspaceLanguages[variant.config.lang];
    };

    const notFound = (request: FastifyRequest, reply: FastifyReply) => {
      const { t, base } = textsFor(request);
      return renderPage(reply, 404, 'message', {
        t,
        base,
        csrf: '',
        title: t.problems.notFoundTitle,
        text: t.problems.notFoundText,
      });
    };

    const signedIn = async (request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined> => {
      const sessionId = request.cookies[sessionCookie];
      const session = sessionId ? await sessions.resume(sessionId) : undefined;
      const account = session === undefined ? undefined : await store.accountByUsername(session.username);
      if (sessionId && session !== undefined && account?.status === 'active') return { sessionId, session, account };
      if (sessionId) {
        // Ended, too old, its password changed, or the account was suspended: the session goes, and its cookie.
        if (session !== undefined) await sessions.end(sessionId);
        reply.clearCookie(sessionCookie, cookieOptions(request));
      }
      reply.redirect(sessionId ? `${urls.login}?ended=1` : urls.login, 303);
      return undefined;
    };

    const kit: PageKit = {
      prefix,
      urls,
      deps: options,
      sessions,
      logins,
      renderPage,
      signedIn,
      dateText,
      cookies: {
        session: sessionCookie,
        pending: pendingCookie,
        sessionOptions: cookieOptions,
        pendingOptions: pendingCookieOptions,
      },

      context: (request, reply, t, who) => ({
        t,
        base: prefix,
        csrf:
          who === undefined
            ? reply.generateCsrf({ path: cookiePath, secure: request.protocol === 'https' })
            : who.session.csrfToken(),
        ...(who === undefined ? {} : { user: who.account.username }),
      }),

      // A new id (and CSRF secret) at every login; a session the browser held before is ended.
      startSession: async (request, reply, username) => {
        const previous = request.cookies[sessionCookie];
        if (previous) await sessions.end(previous);
        const sessionId = await sessions.start(username);
        reply.setCookie(sessionCookie, sessionId, cookieOptions(request));
        return reply.redirect(urls.settings, 303);
      },

      // Routes of this base: each answers 404 for a host whose variant does not serve it.
      page: ({ method, url, schema, handler, preSessionCsrf }) =>
        pages.route<RouteOf<NonNullable<typeof schema>>>({
          method,
          url,
          ...(schema === undefined ? {} : { schema }),
          // The login form's token is a pre-session one (double-submit cookie); a signed-in page's
          // tokens are checked against its session's own secret (workspacePage).
          ...(preSessionCsrf ? { preHandler: pages.csrfProtection } : {}),
          handler: async (request, reply) => {
            const t = textsOf(request);
            return t ? handler(request, reply, t, undefined) : notFound(request, reply);
          },
        }),

      workspacePage: ({ method, url, schema, handler }) =>
        kit.page({
          method,
          url,
          ...(schema === undefined ? {} : { schema }),
          handler: async (request, reply, t) => {
            const who = await signedIn(request, reply);
            if (!who) return reply;
            if (method === 'POST' && !who.session.acceptsCsrfToken(decodePart(SessionForm, request.body)._csrf)) {
              return renderPage(reply, 403, 'message', {
                t,
                base: prefix,
                csrf: '',
                title: t.problems.csrfTitle,
                text: t.problems.csrfText,
              });
            }
            return handler(request, reply, t, who);
          },
        }),

      redirectWith: async (reply, who, url, flash) => {
        if (flash !== undefined) await sessions.setFlash(who.sessionId, JSON.stringify(flash));
        return reply.redirect(url, 303);
      },

      takeFlash: async (who) => {
        const flash = readFlash(who.session.flash);
        if (who.session.flash !== null) await sessions.setFlash(who.sessionId, null);
        return flash;
      },
    };

    for (const register of PAGES) register(kit);

    // Any other address under the workspace: an HTML page, in the variant's language. (A route of
    // its own rather than a not-found handler: the app's own not-found handling answers first.)
    pages.route({ method: ['GET', 'POST'], url: `${prefix}/workspace/*`, handler: notFound });
  }
};

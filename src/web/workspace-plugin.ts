import { join } from 'node:path';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ActivityConfig } from '../activity/activity-config.js';
import type { ActivityReader } from '../activity/purchase-activity.js';
import { purchaseCodeKey } from '../domain/purchase-code.js';
import { decryptApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import { clientIdOf } from '../limits/client-id.js';
import type { Limits } from '../limits/limits.js';
import type { AppKey } from '../marketbob/laravel-encryption.js';
import { KeyManagedByMarketbobError, rotateAccountKey } from '../operations/account-keys.js';
import { activationLimitFromText, setItemActivationLimit } from '../operations/activation-operations.js';
import { createNamedKey, revokeNamedKey } from '../operations/named-keys.js';
import { createPasswordChecker, PasswordChecksBusyError } from '../passwords/password-checker.js';
import { hashPassword, type PasswordCheck } from '../passwords/password-hash.js';
import type { AccountRow } from '../records/rows.js';
import { classifyError, reportFailure } from '../server/error-classifier.js';
import { pathOf } from '../server/url-path.js';
import type { SigningKeys } from '../signing/signing-keys.js';
import type { Store } from '../store/store.js';
import type { VariantResolver } from '../variants/variant-runtime.js';
import type { WebhookServiceDeps } from '../webhooks/webhook-endpoints.js';
import { pageChrome, pageSecurityHeaders } from './front-page.js';
import { createLoginAttempts } from './login-attempts.js';
import { loginGate } from './login-gate.js';
import { type NamedKeyFlash, type NamedKeysSection, namedKeysSection, readNamedKeyForm } from './named-keys-section.js';
import { packageRoot } from './package-root.js';
import { createPendingLogins, PENDING_LOGIN_SECONDS } from './pending-logins.js';
import {
  CHART_DAYS,
  codeDetails,
  codeRows,
  codeRowsCsv,
  dayChart,
  PAGE_WINDOWS,
  pageFormats,
} from './purchase-codes-page.js';
import { workspaceLanguages } from './texts/workspace-languages.js';
import type { WorkspaceTexts } from './texts/workspace-texts.js';
import { codeStep, normalizeCode } from './two-factor-codes.js';
import { exampleCodeOf, validationExample } from './validation-example.js';
import { registerWebhookPages, type WebhookFlash } from './webhooks-page.js';
import { defaultBrand } from './workspace-brand.js';
import type { WorkspaceSettings } from './workspace-config.js';
import { createWorkspaceSessions, type LiveSession } from './workspace-sessions.js';

export interface WorkspaceOptions {
  readonly config: {
    readonly workspace: Readonly<WorkspaceSettings>;
    readonly keyRotationGraceSeconds: number;
    readonly activity: ActivityConfig;
    /** MarketBob's APP_KEY opens its sellers' two-factor secrets (docs/marketbob.md). */
    readonly marketbob?: { readonly appKey?: AppKey } | undefined;
  };
  readonly store: Store;
  readonly keys: KeyMaterial;
  /** The app's variant resolver (built once, in buildApp). */
  readonly resolver: VariantResolver;
  /** The limits machinery the API's budgets use: shared through Redis when REDIS_URL is set. */
  readonly limits: Limits;
  /** Sellers' webhook endpoints (src/webhooks). */
  readonly webhooks: WebhookServiceDeps;
  /** The API's purchase-code activity reports (made off the serving thread). */
  readonly activity: ActivityReader;
  /** The public keys the settings page shows (src/signing). */
  readonly signingKeys?: SigningKeys;
}

const HTML = 'text/html; charset=utf-8';
/** Form bodies are a few short fields. */
const FORM_BODY_LIMIT = 16 * 1024;
const MAX_LOGIN_LENGTH = 320;
const MAX_PASSWORD_LENGTH = 1024;
/** Stored hashes read at start to pick the dummy hash's kind and cost. */
const HASH_SAMPLE_SIZE = 1000;
/** Retry-After when too many logins are being checked at once. */
const BUSY_RETRY_SECONDS = 2;

/** What a page leaves in the session for the next GET to show once (Post/Redirect/Get). */
type Flash =
  | { readonly reveal: true }
  | { readonly rotated: { readonly oldKeyWorksUntil: number | null } }
  | { readonly webhook: WebhookFlash }
  | { readonly namedKey: NamedKeyFlash };

const readFlash = (text: string | null): Flash | undefined => {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as Flash;
  } catch {
    return undefined;
  }
};

/** A signed-in seller, as the workspace's handlers see them. */
interface SignedIn {
  readonly sessionId: string;
  readonly session: LiveSession;
  readonly account: AccountRow;
}

/** What a page's template is given besides its own data. */
interface PageContext {
  readonly t: WorkspaceTexts;
  readonly base: string;
  readonly csrf: string;
  readonly user?: string;
  /** The navigation entry of the page, marked as the current one. */
  readonly nav?: 'settings' | 'purchaseCodes' | 'webhooks';
}

/** A date as the pages write it: in the page's language, in UTC (the server knows no seller's zone). */
const dateText = (t: WorkspaceTexts, at: Date) => ({
  iso: at.toISOString(),
  text: new Intl.DateTimeFormat(t.locale, { dateStyle: 'long', timeStyle: 'long', timeZone: 'UTC' }).format(at),
});

/** How a hidden key is written (its last four characters only), on the page and in the examples. */
const masked = (key: string) => `${'•'.repeat(20)}${key.slice(-4)}`;

/**
 * The settings page's "More keys" data; with a validate key, the examples written with it (in clear
 * only on the page that made it, else masked as the account's key is), and a note naming it.
 */
const namedKeysPageData = (section: NamedKeysSection, t: WorkspaceTexts, url: string, code: string | undefined) => {
  const example = section.exampleKey;
  if (example === undefined) return { namedKeys: section };
  const key = example.value ?? masked(example.last4);
  return {
    namedKeys: section,
    example: validationExample(t, url, key, code),
    exampleToCopy: undefined,
    exampleKeyNote: t.namedKeys.exampleUsesKey(example.name),
  };
};

/** The window a query asks for: one of the page's, else the first. */
const windowOf = (query: unknown): number => {
  const asked = Number((query as Record<string, unknown>).days);
  return (PAGE_WINDOWS as readonly number[]).includes(asked) ? asked : PAGE_WINDOWS[0];
};

/** What a seller typed in the search, trimmed and bounded (a purchase code has at most 100 characters). */
const searchOf = (query: unknown): string => {
  const value = (query as Record<string, unknown>).code;
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
};

const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/**
 * The seller's workspace: `{base}/login` and `{base}/workspace/settings` (API Key: show, copy,
 * generate a new key) under every variant's base, in its language. Server-rendered HTML (Eta,
 * escaping by default), sessions in the store, CSRF tokens on every form, login attempts limited
 * per account and per client. Its own error and not-found pages; the JSON API is not touched.
 */
export const workspacePlugin: FastifyPluginAsync<WorkspaceOptions> = async (
  scope,
  { config, store, keys, resolver, limits, webhooks, activity, signingKeys },
) => {
  const root = packageRoot();
  const eta = new Eta({ views: join(root, 'web', 'views'), cache: true });
  const sessions = createWorkspaceSessions(store, {
    idleMinutes: config.workspace.sessionIdleMinutes,
    maxHours: config.workspace.sessionMaxHours,
  });
  const attempts = createLoginAttempts(limits, config.workspace.loginAttempts);
  // A right password of a seller with two-factor login waits for the code here: not a session.
  const pendingLogins = createPendingLogins(keys.digestKey);
  const appKey = config.marketbob?.appKey;
  // Checks in worker threads, a bounded queue; the dummy hash like most stored ones (read now).
  const passwords = createPasswordChecker({
    storedHashes: () => store.passwordHashSample(HASH_SAMPLE_SIZE),
    onSampleError: (error) => scope.log.error({ err: error }, 'could not prepare the dummy password hash'),
  });
  scope.addHook('onClose', async () => passwords.close());

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
    const loginUrl = `${prefix}/login`;
    const codeUrl = `${prefix}/login/code`;
    const settingsUrl = `${prefix}/workspace/settings`;

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

    /** A new id (and CSRF secret) at every login; a session the browser held before is ended. */
    const startSession = async (request: FastifyRequest, reply: FastifyReply, username: string) => {
      const previous = request.cookies[sessionCookie];
      if (previous) await sessions.end(previous);
      const sessionId = await sessions.start(username);
      reply.setCookie(sessionCookie, sessionId, cookieOptions(request));
      return reply.redirect(settingsUrl, 303);
    };

    const textsOf = (request: FastifyRequest): WorkspaceTexts | undefined => {
      const variant = resolver.forPrefix(prefix, request.host);
      return variant && workspaceLanguages[variant.config.lang];
    };

    /** A page's common data; signed in, its forms carry tokens of the session's own CSRF secret. */
    const context = (request: FastifyRequest, reply: FastifyReply, t: WorkspaceTexts, who?: SignedIn): PageContext => ({
      t,
      base: prefix,
      csrf:
        who === undefined
          ? reply.generateCsrf({ path: cookiePath, secure: request.protocol === 'https' })
          : who.session.csrfToken(),
      ...(who === undefined ? {} : { user: who.account.username }),
    });

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

    /** The signed-in seller, or undefined once the reply redirects to the login page. */
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
      reply.redirect(sessionId ? `${loginUrl}?ended=1` : loginUrl, 303);
      return undefined;
    };

    /** The account's key in clear, or undefined when it has none this server can read. */
    const currentKey = (request: FastifyRequest, account: AccountRow): string | undefined => {
      if (!account.key_cipher) return undefined;
      try {
        return decryptApiKey(keys, account.key_cipher);
      } catch {
        request.log.warn({ reqId: request.id, username: account.username }, 'stored API key cannot be decrypted');
        return undefined;
      }
    };

    /** The validation address as this browser reaches the variant (its host and base). */
    const validationUrl = (request: FastifyRequest) =>
      `${request.protocol}://${request.host}${prefix}/api/purchases/validation`;

    const settingsPage = async (
      request: FastifyRequest,
      reply: FastifyReply,
      t: WorkspaceTexts,
      who: SignedIn,
      options: { reveal: boolean; rotated?: { oldKeyWorksUntil: Date | undefined }; namedKey?: NamedKeyFlash },
    ) => {
      const key = currentKey(request, who.account);
      const until = options.rotated?.oldKeyWorksUntil;
      const [keyDate, lastUsedAt, marketbobUser, exampleCode] = await Promise.all([
        key === undefined ? undefined : store.keyDate(who.account.username),
        key === undefined ? undefined : store.keyLastUsedAt(who.account.username),
        store.marketbobUserId(who.account.username),
        exampleCodeOf(store, activity, who.account.username),
      ]);
      const url = validationUrl(request);
      const shownKey = key === undefined ? 'YOUR_API_KEY' : options.reveal ? key : masked(key);
      return renderPage(reply, 200, 'settings', {
        ...context(request, reply, t, who),
        title: t.settings.title,
        nav: 'settings',
        key:
          key === undefined
            ? undefined
            : options.reveal
              ? { revealed: key }
              : // Masked: not the key itself, anywhere in the page; Copy asks for it (keyUrl), as Show does.
                { masked: masked(key), last4: key.slice(-4) },
        keyUrl: `${settingsUrl}/key`,
        createdAt: keyDate === undefined ? undefined : dateText(t, new Date(keyDate.at)),
        // When it arrived rather than when it was made: that was elsewhere.
        keyImported: keyDate?.origin === 'imported',
        lastUsedAt: lastUsedAt === undefined ? undefined : dateText(t, new Date(lastUsedAt)),
        example: validationExample(t, url, shownKey, exampleCode),
        rotated: options.rotated !== undefined,
        // MarketBob owns the key: the seller replaces it there (docs/marketbob.md).
        keyFromMarketplace: marketbobUser !== undefined,
        oldKeyWorksUntil: until && dateText(t, until),
        // The "More keys" card; with a validate key, the examples use it rather than the account's own.
        ...namedKeysPageData(
          await namedKeysSection(store, keys, who.account.username, t, dateText, options.namedKey),
          t,
          url,
          exampleCode,
        ),
        signingKeys: signingKeys?.published ?? [],
      });
    };

    /** Routes of this base: each answers 404 for a host whose variant does not serve it. */
    const page = (
      method: 'GET' | 'POST',
      url: string,
      handler: (request: FastifyRequest, reply: FastifyReply, t: WorkspaceTexts) => Promise<unknown>,
      options: { preSessionCsrf?: boolean } = {},
    ) =>
      pages.route({
        method,
        url,
        // The login form's token is a pre-session one (double-submit cookie); a signed-in page's
        // tokens are checked against its session's own secret (workspacePage).
        ...(options.preSessionCsrf ? { preHandler: pages.csrfProtection } : {}),
        handler: async (request, reply) => {
          const t = textsOf(request);
          return t ? handler(request, reply, t) : notFound(request, reply);
        },
      });

    const workspacePage = (
      method: 'GET' | 'POST',
      url: string,
      handler: (request: FastifyRequest, reply: FastifyReply, t: WorkspaceTexts, who: SignedIn) => Promise<unknown>,
    ) =>
      page(method, url, async (request, reply, t) => {
        const who = await signedIn(request, reply);
        if (!who) return reply;
        if (method === 'POST' && !who.session.acceptsCsrfToken(field(request.body, '_csrf'))) {
          return renderPage(reply, 403, 'message', {
            t,
            base: prefix,
            csrf: '',
            title: t.problems.csrfTitle,
            text: t.problems.csrfText,
          });
        }
        return handler(request, reply, t, who);
      });

    /** Post/Redirect/Get: what the POST did is shown once by the settings page it redirects to. */
    const toSettings = async (reply: FastifyReply, who: SignedIn, flash?: Flash) => {
      if (flash !== undefined) await sessions.setFlash(who.sessionId, JSON.stringify(flash));
      return reply.redirect(settingsUrl, 303);
    };

    page('GET', loginUrl, async (request, reply, t) => {
      const sessionId = request.cookies[sessionCookie];
      if (sessionId && (await sessions.resume(sessionId)) !== undefined) return reply.redirect(settingsUrl, 303);
      const query = request.query as Record<string, unknown>;
      const notice =
        query.logged_out !== undefined
          ? t.login.loggedOut
          : query.ended !== undefined
            ? t.login.sessionEnded
            : query.expired !== undefined
              ? t.login.codeExpired
              : undefined;
      return renderPage(reply, 200, 'login', {
        ...context(request, reply, t),
        title: t.login.title,
        username: '',
        notice,
      });
    });

    page(
      'POST',
      loginUrl,
      async (request, reply, t) => {
        const login = field(request.body, 'username').trim().slice(0, MAX_LOGIN_LENGTH);
        const password = field(request.body, 'password');
        const again = (status: number, error: string) =>
          renderPage(reply, status, 'login', {
            ...context(request, reply, t),
            title: t.login.title,
            username: login,
            error,
          });
        // The form is `novalidate` (the browser's own bubbles speak its language, not the page's):
        // a blank field is said here, beside it. No password is checked, so no attempt is counted.
        if (login === '' || password === '') {
          return renderPage(reply, 400, 'login', {
            ...context(request, reply, t),
            title: t.login.title,
            username: login,
            missing: { username: login === '', password: password === '' },
          });
        }
        const account =
          login === '' ? undefined : ((await store.accountByUsername(login)) ?? (await store.accountByEmail(login)));
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
            pendingCookie,
            pendingLogins.issue(account.username, hash, prefix),
            pendingCookieOptions(request),
          );
          return reply.redirect(codeUrl, 303);
        }
        return startSession(request, reply, account.username);
      },
      { preSessionCsrf: true },
    );

    /** The pending login of this browser's cookie, or undefined once the reply sends it back to the login page. */
    const pendingOf = async (request: FastifyRequest, reply: FastifyReply) => {
      const pending = await pendingLogins.read(request.cookies[pendingCookie], prefix, (username) =>
        store.passwordHash(username),
      );
      if (pending !== undefined) return pending;
      if (request.cookies[pendingCookie] !== undefined) reply.clearCookie(pendingCookie, pendingCookieOptions(request));
      reply.redirect(`${loginUrl}?expired=1`, 303);
      return undefined;
    };

    const codePage = (
      request: FastifyRequest,
      reply: FastifyReply,
      t: WorkspaceTexts,
      status: number,
      shown: { error?: string; missing?: boolean } = {},
    ) => renderPage(reply, status, 'login-code', { ...context(request, reply, t), title: t.twoFactor.title, ...shown });

    page('GET', codeUrl, async (request, reply, t) => {
      if ((await pendingOf(request, reply)) === undefined) return reply;
      return codePage(request, reply, t, 200);
    });

    page(
      'POST',
      codeUrl,
      async (request, reply, t) => {
        const pending = await pendingOf(request, reply);
        if (pending === undefined) return reply;
        const typed = field(request.body, 'code');
        // As on the login form: a blank field is said beside it, and no attempt is counted.
        if (typed.trim() === '') return codePage(request, reply, t, 400, { missing: true });
        const account = await store.accountByUsername(pending.username);
        const gate = loginGate(account && (await store.marketbobLogin(account.username)), appKey);
        if (account === undefined || gate.kind === 'notAuthor') {
          reply.clearCookie(pendingCookie, pendingCookieOptions(request));
          return reply.redirect(`${loginUrl}?expired=1`, 303);
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
        reply.clearCookie(pendingCookie, pendingCookieOptions(request));
        // Suspended, or the secret no longer readable, since the password step.
        if (account.status !== 'active' || gate.kind === 'marketplaceOnly') {
          return renderPage(reply, 403, 'login', {
            ...context(request, reply, t),
            title: t.login.title,
            username: '',
            error: account.status !== 'active' ? t.login.suspended : t.login.useMarketplace,
          });
        }
        // Two-factor login turned off meanwhile (`open`): the password was right, the session starts.
        return startSession(request, reply, account.username);
      },
      { preSessionCsrf: true },
    );

    workspacePage('GET', `${prefix}/workspace`, async (_request, reply) => reply.redirect(settingsUrl, 303));

    workspacePage('GET', settingsUrl, async (request, reply, t, who) => {
      // What the last POST left to show, once: a reload shows the page as it is, not the key again.
      const flash = readFlash(who.session.flash);
      if (who.session.flash !== null) await sessions.setFlash(who.sessionId, null);
      if (flash && 'webhook' in flash) return settingsPage(request, reply, t, who, { reveal: false });
      if (flash && 'namedKey' in flash) {
        return settingsPage(request, reply, t, who, { reveal: false, namedKey: flash.namedKey });
      }
      if (flash && 'rotated' in flash) {
        const until = flash.rotated.oldKeyWorksUntil;
        return settingsPage(request, reply, t, who, {
          reveal: true,
          rotated: { oldKeyWorksUntil: until === null ? undefined : new Date(until) },
        });
      }
      return settingsPage(request, reply, t, who, { reveal: flash !== undefined && 'reveal' in flash });
    });

    const purchaseCodesUrl = `${prefix}/workspace/purchase-codes`;

    workspacePage('GET', purchaseCodesUrl, async (request, reply, t, who) => {
      const days = windowOf(request.query);
      const search = searchOf(request.query);
      const { username } = who.account;
      const codeKey = search === '' ? undefined : purchaseCodeKey(search);
      const found = codeKey === undefined ? undefined : await codeDetails(store, activity, username, codeKey);
      const rows = search === '' ? await codeRows(store, activity, username, days) : [];
      return renderPage(reply, 200, 'purchase-codes', {
        ...context(request, reply, t, who),
        title: t.purchaseCodes.title,
        nav: 'purchaseCodes',
        url: purchaseCodesUrl,
        days,
        windows: PAGE_WINDOWS,
        search,
        notYours: search !== '' && found === undefined,
        found,
        chart: found && dayChart(found.activity),
        chartDays: CHART_DAYS,
        rows,
        badLimit: (request.query as Record<string, unknown>).limit === 'bad',
        flushSeconds: config.activity.flushSeconds,
        retentionDays: config.activity.retentionDays,
        f: pageFormats(t.locale),
      });
    });

    /** Back to the code's card after one of its forms (Post/Redirect/Get). */
    const toCode = (reply: FastifyReply, code: string, extra = '') =>
      reply.redirect(`${purchaseCodesUrl}?code=${encodeURIComponent(code)}${extra}`, 303);

    // Releases one install of one of the seller's codes (a code that is not theirs: back to the search).
    workspacePage('POST', `${purchaseCodesUrl}/release`, async (request, reply, _t, who) => {
      const code = field(request.body, 'code').trim();
      const codeKey = purchaseCodeKey(code);
      const purchase = codeKey === undefined ? undefined : await store.purchase(codeKey);
      const item = purchase && (await store.item(purchase.item_id));
      if (codeKey !== undefined && item?.account === who.account.username) {
        await store.activations().release(codeKey, field(request.body, 'instance'));
      }
      return toCode(reply, code);
    });

    // Sets the activation limit of the item of one of the seller's codes.
    workspacePage('POST', `${purchaseCodesUrl}/activation-limit`, async (request, reply, _t, who) => {
      const code = field(request.body, 'code').trim();
      const codeKey = purchaseCodeKey(code);
      const purchase = codeKey === undefined ? undefined : await store.purchase(codeKey);
      const item = purchase && (await store.item(purchase.item_id));
      if (item?.account !== who.account.username) return toCode(reply, code);
      const limit = activationLimitFromText(field(request.body, 'limit'));
      if (limit === undefined) return toCode(reply, code, '&limit=bad');
      await setItemActivationLimit(store, item.id, limit);
      return toCode(reply, code);
    });

    workspacePage('GET', `${purchaseCodesUrl}/export.csv`, async (request, reply, _t, who) => {
      const days = windowOf(request.query);
      const rows = await codeRows(store, activity, who.account.username, days);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="purchase-codes-last-${days}-days.csv"`)
        .send(codeRowsCsv(rows));
    });

    workspacePage('POST', `${settingsUrl}/show`, async (_request, reply, _t, who) =>
      toSettings(reply, who, { reveal: true }),
    );

    // Copy on the masked page: the key and the examples with it, asked for as Show asks (a POST
    // with the session's CSRF token), so that a page that only shows the mask never holds the key.
    workspacePage('POST', `${settingsUrl}/key`, async (request, reply, t, who) => {
      const key = currentKey(request, who.account);
      reply.type('application/json; charset=utf-8');
      if (key === undefined) return reply.code(404).send('{"key":null}');
      const example = validationExample(
        t,
        validationUrl(request),
        key,
        await exampleCodeOf(store, activity, who.account.username),
      );
      return reply.send(JSON.stringify({ key, examples: { curl: example.curl, php: example.php } }));
    });

    workspacePage('POST', `${settingsUrl}/generate`, async (_request, reply) =>
      reply.redirect(`${settingsUrl}/generate`, 303),
    );

    workspacePage('GET', `${settingsUrl}/generate`, async (request, reply, t, who) => {
      // Not offered for a key the marketplace owns: the settings page says where to replace it.
      if ((await store.marketbobUserId(who.account.username)) !== undefined) return reply.redirect(settingsUrl, 303);
      const grace = config.keyRotationGraceSeconds;
      return renderPage(reply, 200, 'confirm', {
        ...context(request, reply, t, who),
        title: t.confirm.title,
        nav: 'settings',
        consequence: grace > 0 ? t.confirm.stopsAfterGrace(t.duration(grace)) : t.confirm.stopsAtOnce,
        offerEndNow: grace > 0,
      });
    });

    workspacePage('POST', `${settingsUrl}/generate/confirm`, async (request, reply, _t, who) => {
      // "End the old key now": a rotation without grace stops the old key (and any retired one) at once.
      const endNow = field(request.body, 'end_old_key') === '1';
      const grace = endNow ? 0 : config.keyRotationGraceSeconds;
      const rotated = await rotateAccountKey(store, keys, who.account.username, grace).catch((error: unknown) => {
        if (error instanceof KeyManagedByMarketbobError) return 'managed' as const;
        throw error;
      });
      if (rotated === 'managed') return reply.redirect(settingsUrl, 303);
      if (!rotated) return signedIn(request, reply);
      return toSettings(reply, who, {
        rotated: { oldKeyWorksUntil: rotated.oldKeyWorksUntil?.getTime() ?? null },
      });
    });

    workspacePage('POST', `${settingsUrl}/keys`, async (request, reply, _t, who) => {
      const form = readNamedKeyForm(request.body);
      if ('problem' in form) return toSettings(reply, who, { namedKey: form });
      const created = await createNamedKey(store, keys, who.account.username, form.name, form.scope);
      if (!created) return signedIn(request, reply);
      // The flash names the key, never holds it: the page decrypts it once from the store.
      return toSettings(reply, who, { namedKey: { created: created.id } });
    });

    workspacePage('POST', `${settingsUrl}/keys/:id/revoke`, async (request, reply, _t, who) => {
      const { id } = request.params as { id: string };
      const name = (await store.namedKeys(who.account.username)).find((key) => key.id === id)?.name;
      const outcome = await revokeNamedKey(store, who.account.username, id);
      return toSettings(
        reply,
        who,
        outcome === 'revoked' && name !== undefined ? { namedKey: { revoked: name } } : undefined,
      );
    });

    const webhooksUrl = `${prefix}/workspace/webhooks`;
    registerWebhookPages<SignedIn>({
      url: webhooksUrl,
      deps: webhooks,
      workspacePage,
      dateText,
      langOf: (t) => Object.entries(workspaceLanguages).find(([, texts]) => texts === t)?.[0] ?? 'en',
      render: (request, reply, t, who, status, data) =>
        renderPage(reply, status, 'webhooks', {
          ...context(request, reply, t, who),
          title: t.webhooks.title,
          nav: 'webhooks',
          ...data,
        }),
      redirectWith: async (reply, who, flash) => {
        if (flash !== undefined) await sessions.setFlash(who.sessionId, JSON.stringify({ webhook: flash }));
        return reply.redirect(webhooksUrl, 303);
      },
      takeFlash: async (who) => {
        const flash = readFlash(who.session.flash);
        if (who.session.flash !== null) await sessions.setFlash(who.sessionId, null);
        return flash && 'webhook' in flash ? flash.webhook : undefined;
      },
    });

    workspacePage('POST', `${prefix}/workspace/logout`, async (request, reply, _t, { sessionId }) => {
      await sessions.end(sessionId);
      reply.clearCookie(sessionCookie, cookieOptions(request));
      return reply.redirect(`${loginUrl}?logged_out=1`, 303);
    });

    // Any other address under the workspace: an HTML page, in the variant's language. (A route of
    // its own rather than a not-found handler: the app's own not-found handling answers first.)
    pages.route({ method: ['GET', 'POST'], url: `${prefix}/workspace/*`, handler: notFound });
  }
};

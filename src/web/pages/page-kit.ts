import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PasswordChecker } from '../../passwords/password-checker.js';
import type { AccountRow } from '../../records/rows.js';
import type { LoginAttempts } from '../login-attempts.js';
import type { NamedKeyFlash } from '../named-keys-section.js';
import type { PendingLogins } from '../pending-logins.js';
import type { PartSchemas, RouteOf } from '../request-parts.js';
import type { WorkspaceTexts } from '../texts/workspace-texts.js';
import type { WorkspaceOptions } from '../workspace-options.js';
import type { LiveSession, WorkspaceSessions } from '../workspace-sessions.js';

/** What the Webhooks page leaves for its next GET to show once. */
export interface WebhookFlash {
  /** The endpoint whose secret is shown, this once: just made, or given a new one. */
  readonly secretOf?: string;
  readonly rotated?: boolean;
  readonly notice?: 'testQueued' | 'removed' | 'retryQueued';
}

/** What a page leaves in the session for the next GET to show once (Post/Redirect/Get). */
export type Flash =
  | { readonly reveal: true }
  | { readonly rotated: { readonly oldKeyWorksUntil: number | null } }
  | { readonly webhook: WebhookFlash }
  | { readonly namedKey: NamedKeyFlash };

/** A signed-in seller, as the workspace's handlers see them. */
export interface SignedIn {
  readonly sessionId: string;
  readonly session: LiveSession;
  readonly account: AccountRow;
}

/** What a page's template is given besides its own data. */
export interface PageContext {
  readonly t: WorkspaceTexts;
  readonly base: string;
  readonly csrf: string;
  readonly user?: string;
  /** The navigation entry of the page, marked as the current one. */
  readonly nav?: 'settings' | 'purchaseCodes' | 'webhooks';
}

/** A route of the workspace: its method, address, the schemas of its parts and its handler. */
export interface PageRoute<S extends PartSchemas, Who> {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly schema?: S;
  readonly handler: (
    request: FastifyRequest<RouteOf<S>>,
    reply: FastifyReply,
    t: WorkspaceTexts,
    who: Who,
  ) => Promise<unknown>;
}

/** The workspace's addresses under one base. */
export interface WorkspaceUrls {
  readonly login: string;
  readonly code: string;
  readonly settings: string;
  readonly purchaseCodes: string;
  readonly webhooks: string;
  readonly logout: string;
}

/**
 * What the workspace gives each of its pages under one base (workspace-plugin.ts): the app's
 * parts, the addresses, the sessions and their cookies, and the two ways to add a route.
 */
export interface PageKit {
  readonly prefix: string;
  readonly urls: WorkspaceUrls;
  readonly deps: WorkspaceOptions;
  readonly sessions: WorkspaceSessions;
  /** The login budgets, the logins waiting for a two-factor code, the password checks. */
  readonly logins: {
    readonly attempts: LoginAttempts;
    readonly pending: PendingLogins;
    readonly passwords: PasswordChecker;
  };

  /** A route open to anyone (login); `preSessionCsrf` checks the form's pre-session CSRF token. */
  page<S extends PartSchemas>(route: PageRoute<S, undefined> & { readonly preSessionCsrf?: boolean }): void;
  /** A route for a signed-in seller only; a POST's form must carry the session's CSRF token. */
  workspacePage<S extends PartSchemas>(route: PageRoute<S, SignedIn>): void;

  /** Renders a view in the workspace's layout. */
  renderPage(reply: FastifyReply, status: number, view: string, data: PageContext & Record<string, unknown>): unknown;
  /** A page's common data; signed in, its forms carry tokens of the session's own CSRF secret. */
  context(request: FastifyRequest, reply: FastifyReply, t: WorkspaceTexts, who?: SignedIn): PageContext;
  /** The signed-in seller, or undefined once the reply redirects to the login page. */
  signedIn(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined>;
  /** Starts a session for `username` (a new id at every login) and redirects to the settings page. */
  startSession(request: FastifyRequest, reply: FastifyReply, username: string): Promise<unknown>;
  readonly cookies: {
    readonly session: string;
    readonly pending: string;
    sessionOptions(request: FastifyRequest): CookieSerializeOptions;
    pendingOptions(request: FastifyRequest): CookieSerializeOptions;
  };
  /** Post/Redirect/Get: stores what to show once (if anything) and redirects to `url`. */
  redirectWith(reply: FastifyReply, who: SignedIn, url: string, flash?: Flash): Promise<unknown>;
  /** The flash the session holds (taken: shown once). */
  takeFlash(who: SignedIn): Promise<Flash | undefined>;
  /** A date as the pages write it: in the page's language, in UTC (the server knows no seller's zone). */
  dateText(t: WorkspaceTexts, at: Date): { iso: string; text: string };
}

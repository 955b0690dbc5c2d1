import { createHash, randomBytes } from 'node:crypto';
import { Tokens } from '@fastify/csrf';
import type { Store } from '../store/store.js';

/** A session's last use is written at most this often: an idle timeout of minutes needs no write per page. */
const TOUCH_EVERY_MS = 60_000;

/** A live session, as a page sees it. */
export interface LiveSession {
  readonly username: string;
  /** What the previous request left for this page to show once (JSON), if anything. */
  readonly flash: string | null;
  /** A CSRF token for this session's forms. */
  csrfToken(): string;
  /** Whether `token` was made for this session's forms. */
  acceptsCsrfToken(token: string): boolean;
}

/** Login sessions kept in the store, so every instance sees them and a restart keeps them. */
export interface WorkspaceSessions {
  /**
   * Starts a session for `username`, bound to its current password hash: the random id for the
   * cookie (the store keeps only its hash). A new CSRF secret with it.
   */
  start(username: string): Promise<string>;
  /**
   * The live session of this id, or undefined (unknown, ended, idle too long, older than the
   * absolute lifetime, or begun before the account's password changed: then ended).
   */
  resume(id: string): Promise<LiveSession | undefined>;
  /** Sets (or, with null, clears) what the session's next page shows once. */
  setFlash(id: string, flash: string | null): Promise<void>;
  end(id: string): Promise<void>;
}

export interface SessionLifetimes {
  /** A session unused this long ends. */
  readonly idleMinutes: number;
  /** A session ends this long after login, however busy. */
  readonly maxHours: number;
}

/** SHA-256 of the id: whoever reads the store cannot use what it holds as a cookie. */
const hashOf = (id: string) => createHash('sha256').update(id, 'utf8').digest('hex');

/**
 * What binds a session to the password it was opened with: a digest of the account's hash (or of
 * its absence). Rows older than migration 0003 hold '', which no digest equals.
 */
const credentialTag = (passwordHash: string | undefined) =>
  createHash('sha256')
    .update(`credential:${passwordHash ?? ''}`, 'utf8')
    .digest('hex');

/** Session ids are 32 random bytes, base64url: nothing else may be taken for one. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** Tokens of the csrf package (`@fastify/csrf`), from the session's secret. */
const tokens = new Tokens({});

export function createWorkspaceSessions(
  store: Store,
  { idleMinutes, maxHours }: SessionLifetimes,
  now: () => number = Date.now,
): WorkspaceSessions {
  const idleMs = idleMinutes * 60_000;
  const maxMs = maxHours * 3_600_000;
  return {
    async start(username) {
      const id = randomBytes(32).toString('base64url');
      const time = now();
      // Sessions left idle are removed now and then: here, once per login.
      await store.deleteSessionsIdleSince(time - idleMs);
      await store.createSession({
        id_hash: hashOf(id),
        username,
        created_at: time,
        last_seen_at: time,
        csrf_secret: await tokens.secret(),
        credential_tag: credentialTag(await store.passwordHash(username)),
        flash: null,
      });
      return id;
    },
    async resume(id) {
      if (!SESSION_ID.test(id)) return undefined;
      const idHash = hashOf(id);
      const session = await store.session(idHash);
      if (!session) return undefined;
      const time = now();
      const over =
        time - session.last_seen_at >= idleMs ||
        time - session.created_at >= maxMs ||
        session.csrf_secret === '' ||
        session.credential_tag !== credentialTag(await store.passwordHash(session.username));
      if (over) {
        await store.deleteSession(idHash);
        return undefined;
      }
      if (time - session.last_seen_at >= TOUCH_EVERY_MS) await store.touchSession(idHash, time);
      const secret = session.csrf_secret;
      return {
        username: session.username,
        flash: session.flash,
        csrfToken: () => tokens.create(secret),
        acceptsCsrfToken: (token) => token !== '' && tokens.verify(secret, token),
      };
    },
    async setFlash(id, flash) {
      if (SESSION_ID.test(id)) await store.setSessionFlash(hashOf(id), flash);
    },
    async end(id) {
      if (SESSION_ID.test(id)) await store.deleteSession(hashOf(id));
    },
  };
}

import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../store/store.js';

/** A session's last use is written at most this often: an idle timeout of minutes needs no write per page. */
const TOUCH_EVERY_MS = 60_000;

/** Login sessions kept in the store, so every instance sees them and a restart keeps them. */
export interface WorkspaceSessions {
  /** Starts a session for `username`: the random id for the cookie (the store keeps only its hash). */
  start(username: string): Promise<string>;
  /** The username of a live session, or undefined (unknown, ended, or idle too long: then ended). */
  resume(id: string): Promise<string | undefined>;
  end(id: string): Promise<void>;
}

/** SHA-256 of the id: whoever reads the store cannot use what it holds as a cookie. */
const hashOf = (id: string) => createHash('sha256').update(id, 'utf8').digest('hex');

/** Session ids are 32 random bytes, base64url: nothing else may be taken for one. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export function createWorkspaceSessions(
  store: Store,
  idleMinutes: number,
  now: () => number = Date.now,
): WorkspaceSessions {
  const idleMs = idleMinutes * 60_000;
  return {
    async start(username) {
      const id = randomBytes(32).toString('base64url');
      const time = now();
      // Sessions left idle are removed now and then: here, once per login.
      await store.deleteSessionsIdleSince(time - idleMs);
      await store.createSession({ id_hash: hashOf(id), username, created_at: time, last_seen_at: time });
      return id;
    },
    async resume(id) {
      if (!SESSION_ID.test(id)) return undefined;
      const idHash = hashOf(id);
      const session = await store.session(idHash);
      if (!session) return undefined;
      const time = now();
      if (time - session.last_seen_at >= idleMs) {
        await store.deleteSession(idHash);
        return undefined;
      }
      if (time - session.last_seen_at >= TOUCH_EVERY_MS) await store.touchSession(idHash, time);
      return session.username;
    },
    async end(id) {
      if (SESSION_ID.test(id)) await store.deleteSession(hashOf(id));
    },
  };
}

import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** How long the code page waits for the code after a right password; then the login starts over. */
export const PENDING_LOGIN_SECONDS = 5 * 60;

/** A right password waiting for its two-factor code: not a session (it opens no page). */
export interface PendingLogin {
  readonly username: string;
}

/**
 * The state between a right password and its code, carried by the browser in a cookie: signed
 * (HMAC-SHA256 under a key derived from the server secret, so every process and instance reads
 * it), short-lived, bound to the workspace base it was made for and to the account's password
 * hash at the time (a password changed meanwhile ends it, as it ends sessions). It holds no
 * secret: a username, a digest and a time.
 */
export interface PendingLogins {
  issue(username: string, passwordHash: string, prefix: string): string;
  /** The pending login of a token still valid for this base and this password hash; undefined otherwise. */
  read(
    token: string | undefined,
    prefix: string,
    passwordHashOf: (username: string) => Promise<string | undefined>,
  ): Promise<PendingLogin | undefined>;
}

const tagOf = (passwordHash: string) =>
  createHash('sha256').update(`pending-login:${passwordHash}`, 'utf8').digest('base64url');

export function createPendingLogins(digestKey: Buffer, now: () => number = Date.now): PendingLogins {
  const key = Buffer.from(hkdfSync('sha256', digestKey, 'marketplace-api', 'workspace-pending-login', 32));
  const sign = (body: string) => createHmac('sha256', key).update(body, 'utf8').digest();
  return {
    issue(username, passwordHash, prefix) {
      const expires = now() + PENDING_LOGIN_SECONDS * 1000;
      const body = Buffer.from(JSON.stringify([username, tagOf(passwordHash), expires, prefix]), 'utf8').toString(
        'base64url',
      );
      return `${body}.${sign(body).toString('base64url')}`;
    },
    async read(token, prefix, passwordHashOf) {
      if (token === undefined || token.length > 2048) return undefined;
      const [body, mac, ...rest] = token.split('.');
      if (body === undefined || mac === undefined || rest.length > 0) return undefined;
      const given = Buffer.from(mac, 'base64url');
      const expected = sign(body);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      let fields: unknown;
      try {
        fields = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      } catch {
        return undefined;
      }
      if (!Array.isArray(fields) || fields.length !== 4) return undefined;
      const [username, tag, expires, base] = fields as unknown[];
      if (typeof username !== 'string' || typeof tag !== 'string' || typeof expires !== 'number') return undefined;
      if (base !== prefix || now() >= expires) return undefined;
      const hash = await passwordHashOf(username);
      return hash !== undefined && tagOf(hash) === tag ? { username } : undefined;
    },
  };
}

import { createHash, timingSafeEqual } from 'node:crypto';

const BEARER = /^Bearer +(\S+) *$/i;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Checks `Authorization: Bearer <token>` against the admin token in constant time: both sides
 * are hashed first, so neither the token's length nor its content leaks through timing.
 */
export function createAdminTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const given = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    // A missing token is still compared, against nothing, in the same time.
    return timingSafeEqual(digest(given ?? ''), expected) && given !== undefined;
  };
}

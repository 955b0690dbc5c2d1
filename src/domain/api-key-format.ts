/** What a key given in a file (an import, a MarketBob user) may look like: the importer's rule and the bridge's. */
export const API_KEY_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/** What the key columns of an account without a key start with: no key's digest (hex) has a colon. */
export const NO_KEY_PREFIX = 'none:';

/** Whether a stored key digest is an account's key (rather than the mark of an account without one). */
export function isKeyDigest(digest: string): boolean {
  return !digest.startsWith(NO_KEY_PREFIX);
}

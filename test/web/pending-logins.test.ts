import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPendingLogins, PENDING_LOGIN_SECONDS } from '../../src/web/pending-logins.js';

const HASH = '$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA';

describe('pending logins (the step between the password and the two-factor code)', () => {
  const key = randomBytes(32);
  let now = 1_800_000_000_000;
  const pending = createPendingLogins(key, () => now);
  const hashes = new Map([['sam', HASH]]);
  const hashOf = async (username: string) => hashes.get(username);

  it('reads back the username of a token of this base and this password hash', async () => {
    const token = pending.issue('sam', HASH, '/pt');
    expect(await pending.read(token, '/pt', hashOf)).toEqual({ username: 'sam' });
    // It holds no secret: the password hash is only in it as a digest.
    expect(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()).not.toContain(HASH);
  });

  it('refuses another base, a changed password, a token past its five minutes, and a forged one', async () => {
    const token = pending.issue('sam', HASH, '');
    expect(await pending.read(token, '/pt', hashOf)).toBeUndefined();
    expect(await pending.read(token, '', async () => `${HASH}x`)).toBeUndefined();
    expect(await pending.read(token, '', async () => undefined)).toBeUndefined();

    const issuedAt = now;
    now = issuedAt + PENDING_LOGIN_SECONDS * 1000 - 1;
    expect(await pending.read(token, '', hashOf)).toEqual({ username: 'sam' });
    now = issuedAt + PENDING_LOGIN_SECONDS * 1000;
    expect(await pending.read(token, '', hashOf)).toBeUndefined();
    now = issuedAt;

    const [body, mac] = token.split('.') as [string, string];
    const otherBody = Buffer.from(JSON.stringify(['eve', 'x', now + 60_000, ''])).toString('base64url');
    expect(await pending.read(`${otherBody}.${mac}`, '', hashOf)).toBeUndefined();
    expect(await pending.read(`${body}.${mac}x`, '', hashOf)).toBeUndefined();
    expect(await pending.read(`${body}.${mac}.`, '', hashOf)).toBeUndefined();
    expect(await pending.read(undefined, '', hashOf)).toBeUndefined();
    // Another server secret's token.
    const elsewhere = createPendingLogins(randomBytes(32), () => now).issue('sam', HASH, '');
    expect(await pending.read(elsewhere, '', hashOf)).toBeUndefined();
  });
});

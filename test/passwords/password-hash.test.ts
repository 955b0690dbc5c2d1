import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { isAcceptedPasswordHash } from '../../src/domain/password-hash-format.js';
import { checkPasswordSync, hashPassword } from '../../src/passwords/password-hash.js';

describe('password hashes', () => {
  it('writes scrypt with its parameters and salt, and verifies it', async () => {
    const hash = await hashPassword('pässwörd with spaces');
    expect(hash).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await hashPassword('pässwörd with spaces')).not.toBe(hash);
    expect(isAcceptedPasswordHash(hash)).toBe(true);
    expect(checkPasswordSync('pässwörd with spaces', hash)).toEqual({ matches: true, needsRehash: false });
    expect(checkPasswordSync('passwörd with spaces', hash)).toEqual({ matches: false, needsRehash: false });
  });

  it('verifies bcrypt as Laravel ($2y$), and as $2a$ and $2b$, and asks for a rehash when it matches', async () => {
    const b = bcrypt.hashSync('secret-123', 4);
    for (const hash of [b, b.replace(/^\$2b\$/, '$2y$'), b.replace(/^\$2b\$/, '$2a$')]) {
      expect(isAcceptedPasswordHash(hash)).toBe(true);
      expect(checkPasswordSync('secret-123', hash)).toEqual({ matches: true, needsRehash: true });
      expect(checkPasswordSync('secret-124', hash)).toEqual({ matches: false, needsRehash: false });
    }
  });

  it('accepts nothing else, and a hash of no known kind matches nothing', async () => {
    for (const hash of [
      '',
      'secret-123',
      '$2x$10$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234',
      '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA',
      '$scrypt$ln=30,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      expect(isAcceptedPasswordHash(hash), hash).toBe(false);
      expect(checkPasswordSync('secret-123', hash)).toEqual({ matches: false, needsRehash: false });
    }
  });
});

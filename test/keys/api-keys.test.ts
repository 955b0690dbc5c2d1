import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decryptApiKey, digestApiKey, encryptApiKey, generateApiKey } from '../../src/keys/api-keys.js';
import { deriveKeyMaterial, loadOrCreateSecretFile } from '../../src/keys/server-secret.js';

const material = deriveKeyMaterial('a'.repeat(64));

describe('api keys', () => {
  it('generates 32 random bytes as hex', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(generateApiKey()).not.toBe(key);
  });

  it('digests with the server secret: same key, same digest; another secret, another digest', () => {
    const digest = digestApiKey(material, 'key-one-1234567890');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestApiKey(material, 'key-one-1234567890')).toBe(digest);
    expect(digestApiKey(deriveKeyMaterial('b'.repeat(64)), 'key-one-1234567890')).not.toBe(digest);
  });

  it('encrypts so only the same secret decrypts, and never in the clear', () => {
    const sealed = encryptApiKey(material, 'key-one-1234567890');
    expect(sealed).not.toContain('key-one');
    expect(decryptApiKey(material, sealed)).toBe('key-one-1234567890');
    expect(() => decryptApiKey(deriveKeyMaterial('b'.repeat(64)), sealed)).toThrow();
  });

  it('makes the secret file once, mode 0600, and reads it back after', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'secret-')), 'sub', 'secret.key');
    const secret = loadOrCreateSecretFile(path);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecretFile(path)).toBe(secret);
    expect(readFileSync(path, 'utf8').trim()).toBe(secret);
  });
});

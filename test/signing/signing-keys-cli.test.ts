import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

const ISO = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';

describe.each(TEST_STORES)('npm run cli -- signing-keys (%s store)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t.close();
  });

  it('rotates: a new key signs, the previous one stays published, and list shows both', async () => {
    const [first] = await t.store.signingKeys().all();
    const rotated = await runCli(['signing-keys', 'rotate'], { cwd: t.dir, env: cleanEnv(t.env) });
    const [made] = await t.store.signingKeys().all();
    expect(made?.kid).not.toBe(first?.kid);
    expect(rotated.code).toBe(0);
    expect(rotated.stderr).toBe('');
    expect(rotated.stdout).toMatch(
      new RegExp(
        `^signing key ${made?.kid} made; running servers sign with it within a minute\\n` +
          `the previous key ${first?.kid} stays published until ${ISO}\\n$`,
      ),
    );
    // The private key is never printed.
    expect(rotated.stdout).not.toContain(made?.private_key);

    const listed = await runCli(['signing-keys', 'list'], { cwd: t.dir, env: cleanEnv(t.env) });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`^${made?.kid}  made ${ISO}  signing now\\n${first?.kid}  made ${ISO}  published until ${ISO}\\n$`),
    );
    // A running server reads the new key (it does every minute; here, at once).
    await t.app.signingKeys.refresh();
    const jwks = JSON.parse((await t.app.inject({ url: '/.well-known/jwks.json' })).body) as {
      keys: { kid: string }[];
    };
    expect(jwks.keys.map((key) => key.kid)).toEqual([made?.kid, first?.kid]);
  });
});

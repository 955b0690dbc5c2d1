import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportNdjson } from '../../src/exporter/export-ndjson.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { createNamedKey, revokeNamedKey } from '../../src/operations/named-keys.js';
import { readSnapshot } from '../../src/store/snapshot.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from '../importer/import-fixtures.js';

/**
 * Named keys survive an export and an import (the account line's `api_keys`, in clear as
 * `api_key`; stored as a digest and a ciphertext in the store imported into, whatever its secret);
 * a revoked key is not exported, and an old export does not bring it back unless keys may be replaced.
 */
const CODE = 'ABC-123_x';

async function exported(t: TestApp): Promise<string[]> {
  let text = '';
  const out = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  await readSnapshot(t.config.store, (snapshot) => exportNdjson(snapshot, t.keys, out));
  return text.trim().split('\n');
}

const importInto = (t: TestApp, lines: readonly string[], replaceKeys = false) =>
  importNdjson(t.store, t.keys, Readable.from([lines.join('\n')]), { replaceKeys });

describe.each(TEST_STORES)('named keys through export and import (%s)', (kind) => {
  let source: TestApp;
  let target: TestApp;
  beforeAll(async () => {
    source = await createTestApp(kind, { lines: [accountLine(), itemLine(), purchaseLine({ code: CODE })] });
    // Another store, with a secret of its own: the keys are digested and sealed again there.
    target = await createTestApp(kind, { env: { SECRET_KEY: 'another-secret-0123456789abcdef-0123456789' } });
  });
  afterAll(async () => {
    await source.close();
    await target.close();
  });

  it('carries the working keys, with their ids, names, scopes and dates; not a revoked one', async () => {
    const validate = await createNamedKey(source.store, source.keys, 'jdoe', 'Installer', 'validate');
    const revoked = await createNamedKey(source.store, source.keys, 'jdoe', 'Old installer', 'validate');
    if (!validate || !revoked) throw new Error('no keys made');
    expect(await revokeNamedKey(source.store, 'jdoe', revoked.id)).toBe('revoked');
    const [created] = await source.store.namedKeys('jdoe');

    const lines = await exported(source);
    const account = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(account.api_keys).toEqual([
      {
        id: validate.id,
        name: 'Installer',
        scope: 'validate',
        key: validate.key,
        created_at: new Date(created?.createdAt as number).toISOString(),
      },
    ]);
    expect(lines.join('\n')).not.toContain(revoked.key);

    const result = await importInto(target, lines);
    expect(result.ok).toBe(true);
    expect(await target.store.namedKeys('jdoe')).toEqual([
      { id: validate.id, name: 'Installer', scope: 'validate', createdAt: created?.createdAt, lastUsedAt: undefined },
    ]);
    const details = await target.app.inject({ url: '/api/account/details', headers: { 'x-api-key': validate.key } });
    expect([details.statusCode, details.headers['x-error-code']]).toEqual([403, 'key_scope']);
    const validation = await target.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': validate.key },
      payload: { purchase_code: CODE },
    });
    expect(validation.statusCode).toBe(200);
    const revokedThere = await target.app.inject({
      url: '/api/account/details',
      headers: { 'x-api-key': revoked.key },
    });
    expect(revokedThere.statusCode).toBe(401);

    // The same file again changes no key.
    expect((await importInto(target, lines)).ok).toBe(true);
    expect((await target.store.namedKeys('jdoe')).map((key) => key.id)).toEqual([validate.id]);
  });

  it('refuses an old export that would bring back a key revoked since, unless keys may be replaced', async () => {
    const made = await createNamedKey(source.store, source.keys, 'jdoe', 'Leaked', 'full');
    if (!made) throw new Error('no key made');
    const old = await exported(source);
    expect(await revokeNamedKey(source.store, 'jdoe', made.id)).toBe('revoked');
    const index = (JSON.parse(old[0] as string).api_keys as { id: string }[]).findIndex((key) => key.id === made.id);

    const refused = await importInto(source, old);
    expect(refused).toEqual({
      ok: false,
      errorCount: 1,
      errors: [
        {
          line: 1,
          message:
            `account: api_keys[${index}] is a key that was revoked; importing it would bring it back ` +
            '(to do so: import --replace-keys, or replace_keys=true in the admin API)',
        },
      ],
    });
    const still = await source.app.inject({ url: '/api/account/details', headers: { 'x-api-key': made.key } });
    expect(still.statusCode).toBe(401);

    expect((await importInto(source, old, true)).ok).toBe(true);
    const back = await source.app.inject({ url: '/api/account/details', headers: { 'x-api-key': made.key } });
    expect(back.statusCode).toBe(200);
  });

  it('refuses a bad api_keys entry with line N and no value', async () => {
    const line = JSON.stringify(
      accountLine({
        username: 'other',
        api_keys: [{ id: 'nope', name: ' ', scope: 'validate', key: 'short', created_at: '2024-01-01T00:00:00Z' }],
      }),
    );
    const result = await importInto(target, [line]);
    expect(result).toEqual({
      ok: false,
      errorCount: 1,
      errors: [
        {
          line: 1,
          message:
            'account: api_keys[0].id must be key_ and 1 to 60 letters or digits; ' +
            'api_keys[0].name must be 1 to 64 characters, without control characters; ' +
            'api_keys[0].key must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -',
        },
      ],
    });
  });
});

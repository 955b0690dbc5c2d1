import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportNdjson } from '../../src/exporter/export-ndjson.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { SigningKeys } from '../../src/signing/signing-keys.js';
import { readSnapshot } from '../../src/store/snapshot.js';
import { ALL_LINES } from '../api/fixtures.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

async function exportText(t: TestApp): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await readSnapshot(t.config.store, (snapshot) => exportNdjson(snapshot, t.keys, out));
  return Buffer.concat(chunks).toString('utf8');
}

describe.each(TEST_STORES)('the signing key in an export (%s store)', (kind) => {
  let source: TestApp;
  let target: TestApp;
  beforeAll(async () => {
    source = await createTestApp(kind, { lines: ALL_LINES });
    // Another deployment: its own server secret, and its own key made at its first start.
    target = await createTestApp(kind, { env: { SECRET_KEY: 'another-deployment-secret-0123456789abcdef' } });
  });
  afterAll(async () => {
    await source.close();
    await target.close();
  });

  it('leaves the store only in an export, and an import into another deployment signs with it', async () => {
    const [sourceKey] = await source.store.signingKeys().all();
    const text = await exportText(source);
    const lines = text.trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1) as string);
    expect(Object.keys(last)).toEqual(['type', 'kid', 'private_key', 'created_at']);
    expect(last).toMatchObject({ type: 'signing_key', kid: sourceKey?.kid });
    // The stored form is sealed with the server secret; the export holds the key in clear.
    expect(sourceKey?.private_key).not.toContain(last.private_key);

    const [targetOwn] = await target.store.signingKeys().all();
    const imported = await importNdjson(target.store, target.keys, Readable.from([text]));
    expect(imported.ok).toBe(true);
    const held = await target.store.signingKeys().all();
    expect(held.map((row) => row.kid)).toEqual([sourceKey?.kid, targetOwn?.kid]);
    // Sealed again with the target's secret: the target opens it.
    const opened = await SigningKeys.open(target.store.signingKeys(), target.keys, 30);
    expect(opened.current.kid).toBe(sourceKey?.kid);
    // Imported again: nothing more.
    expect((await importNdjson(target.store, target.keys, Readable.from([text]))).ok).toBe(true);
    expect(await target.store.signingKeys().all()).toHaveLength(2);
  });

  it('refuses a signing key line whose kid is not its key, naming the line, writing nothing', async () => {
    const line = JSON.parse((await exportText(source)).trimEnd().split('\n').at(-1) as string);
    const result = await importNdjson(
      target.store,
      target.keys,
      Readable.from([JSON.stringify({ ...line, kid: 'not-the-thumbprint' })]),
    );
    expect(result).toEqual({
      ok: false,
      errors: [{ line: 1, message: 'signing_key: kid is not the key’s thumbprint' }],
      errorCount: 1,
    });
  });
});

import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExportCommandOptions, runExportCommand } from '../../src/exporter/export-command.js';
import { exportNdjson } from '../../src/exporter/export-ndjson.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { decryptApiKey } from '../../src/keys/api-keys.js';
import { deriveKeyMaterial } from '../../src/keys/server-secret.js';
import type { AccountRow, ItemRow, PurchaseRow } from '../../src/records/rows.js';
import { readSnapshot } from '../../src/store/snapshot.js';
import { ALL_LINES, UNKNOWN_KEY } from '../api/fixtures.js';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { TEST_SECRET_KEY } from '../helpers/test-database.js';

type Line = Record<string, unknown>;
const linesOf = (type: string) => (ALL_LINES as Line[]).filter((line) => line.type === type);

/** Every key the fixture gives, and one no account holds. */
const KEYS = [...linesOf('account').map((line) => line.api_key as string), UNKNOWN_KEY];
/** Every item id, and one that does not exist. */
const ITEM_IDS = [...linesOf('item').map((line) => String(line.id)), '999999'];
/** Every purchase code as stored, in another case and padded, and one that does not exist. */
const CODES = [
  ...linesOf('purchase').flatMap((line) => {
    const code = line.code as string;
    return [code, ` ${code.toLowerCase()} `];
  }),
  'NO-SUCH-CODE-0001',
];

/** Every request of the four endpoints, in both variants, for every key, item and code of the fixture. */
function everyRequest(): InjectOptions[] {
  const requests: InjectOptions[] = [];
  for (const variant of VARIANTS) {
    for (const key of KEYS) {
      const headers = { 'x-api-key': key };
      requests.push({ method: 'GET', url: `${variant.base}/api/account/details`, headers });
      requests.push({ method: 'GET', url: `${variant.base}/api/items/all`, headers });
      for (const id of ITEM_IDS) {
        requests.push({ method: 'GET', url: `${variant.base}/api/items/item?item_id=${id}`, headers });
      }
      for (const code of CODES) {
        requests.push({
          method: 'POST',
          url: `${variant.base}/api/purchases/validation`,
          headers,
          payload: { purchase_code: code },
        });
      }
    }
  }
  return requests;
}

interface Rows {
  accounts: (Omit<AccountRow, 'key_digest' | 'key_cipher'> & { api_key: string })[];
  items: ItemRow[];
  purchases: PurchaseRow[];
}

/** Every row of the app's store, read directly, with each key decrypted in place of its digest and ciphertext. */
async function rowsOf(app: TestApp): Promise<Rows> {
  return readSnapshot(app.config.store, async (snapshot) => {
    const rows: Rows = { accounts: [], items: [], purchases: [] };
    for (const { key_digest: _digest, key_cipher, ...account } of await snapshot.accounts(undefined, 1000)) {
      rows.accounts.push({ ...account, api_key: decryptApiKey(app.keys, key_cipher) });
    }
    rows.items = await snapshot.items(undefined, 1000);
    rows.purchases = await snapshot.purchases(undefined, 1000);
    const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    rows.accounts.sort((a, b) => byText(a.username, b.username));
    rows.purchases.sort((a, b) => byText(a.code_key, b.code_key));
    return rows;
  });
}

/** How the export command reads the app's store. */
const readFrom =
  (app: TestApp): ExportCommandOptions['read'] =>
  (work) =>
    readSnapshot(app.config.store, work);

const sortedLines = (text: string) => text.trimEnd().split('\n').sort();

/** Where the exported lines are written, as text. */
function capture(): NodeJS.WritableStream & { text(): string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return Object.assign(stream, { text: () => text });
}

// One source for every target: an SQLite store holding the HTTP fixture, whose secret is in secret.key.
let source: TestApp;
let file: string;
let exported: string;
beforeAll(async () => {
  source = await createTestApp('sqlite', { lines: ALL_LINES });
  file = join(source.dir, 'export.ndjson');
});
afterAll(async () => {
  await source?.close();
});

describe('npm run cli -- export FILE', () => {
  it('exports every row to a file only its owner can read, and the same to standard output', async () => {
    const written = await runCli(['export', file], { cwd: source.dir, env: cleanEnv(source.env) });
    expect(written).toEqual({
      code: 0,
      stdout: '',
      stderr: `exported 7 accounts, 17 items, ${linesOf('purchase').length} purchases to ${file} (it holds every API key: keep it safe)\n`,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    exported = readFileSync(file, 'utf8');
    const lines = exported.trimEnd().split('\n');
    // Every record, then the deployment's signing key pair (docs/api.md 8.2).
    expect(lines).toHaveLength(ALL_LINES.length + 1);
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ type: 'signing_key' });
    // Accounts, then items, then purchases: every reference points back.
    const types = lines.map((line) => (JSON.parse(line) as Line).type);
    expect(types).toEqual([...types].sort());
    // No partial file is left behind.
    expect(readdirSync(source.dir).filter((name) => name.includes('partial'))).toEqual([]);

    // '-' (and no FILE) write the same lines to standard output.
    const stdout = capture();
    const stderr = capture();
    const read = readFrom(source);
    expect(await runExportCommand({ keys: source.keys, read, file: '-', stdout, stderr })).toBe(true);
    expect(stdout.text()).toBe(exported);
    expect(stderr.text()).toBe(`exported 7 accounts, 17 items, ${linesOf('purchase').length} purchases\n`);
  });
});

describe.each(TEST_STORES)('moving an SQLite store to %s with export, then import', (targetKind) => {
  let target: TestApp;
  beforeAll(async () => {
    // The target has another secret (SECRET_KEY, or a secret.key of its own): the keys move in clear.
    target = await createTestApp(targetKind);
  });
  afterAll(async () => {
    await target?.close();
  });

  it('imports into the new store as every row, and again as nothing changed', async () => {
    expect(exported).toBeDefined();
    const imported = await runCli(['import', file], { cwd: target.dir, env: cleanEnv(target.env) });
    const purchases = linesOf('purchase').length;
    expect(imported).toEqual({
      code: 0,
      stdout:
        `accounts: 7 inserted, 0 updated, 0 unchanged\nitems: 17 inserted, 0 updated, 0 unchanged\n` +
        `purchases: ${purchases} inserted, 0 updated, 0 unchanged\n`,
      stderr: '',
    });
    const again = await importNdjson(target.store, target.keys, createReadStream(file));
    expect(again).toEqual({
      ok: true,
      counts: {
        account: { inserted: 0, updated: 0, unchanged: 7 },
        item: { inserted: 0, updated: 0, unchanged: 17 },
        purchase: { inserted: 0, updated: 0, unchanged: purchases },
      },
    });

    // Every row equal, every key the same key; and the new store exports the same lines.
    expect(await rowsOf(target)).toEqual(await rowsOf(source));
    const back = await readSnapshot(target.config.store, async (snapshot) => {
      const out = capture();
      await exportNdjson(snapshot, target.keys, out);
      return out.text();
    });
    // The target adds its own signing key pair to the one it imported, which now signs.
    const signingLine = (line: string) => line.startsWith('{"type":"signing_key"');
    expect(sortedLines(back).filter((line) => !signingLine(line))).toEqual(
      sortedLines(exported).filter((line) => !signingLine(line)),
    );
    const signingLines = exported.trimEnd().split('\n').filter(signingLine);
    expect(back.trimEnd().split('\n').filter(signingLine)).toEqual([expect.any(String), ...signingLines]);
  });

  it('answers every request of the fixture the same, in both variants', async () => {
    const requests = everyRequest();
    expect(requests.length).toBeGreaterThan(500);
    const statuses = new Map<number, number>();
    for (const request of requests) {
      const before = await source.app.inject(request);
      const after = await target.app.inject(request);
      expect([after.statusCode, after.body], JSON.stringify(request)).toEqual([before.statusCode, before.body]);
      statuses.set(before.statusCode, (statuses.get(before.statusCode) ?? 0) + 1);
    }
    // Real answers of every kind were compared (and no failed-attempts limit got in the way).
    expect([...statuses.keys()].sort()).toEqual([200, 401, 404]);
    expect(statuses.get(200)).toBeGreaterThan(50);
  });
});

describe('export, when it cannot', () => {
  const read: ExportCommandOptions['read'] = (work) => readSnapshot(source.config.store, work);

  it('refuses with another server secret, says why, and leaves no file', async () => {
    const target = join(source.dir, 'wrong-secret.ndjson');
    const stderr = capture();
    const keys = deriveKeyMaterial(TEST_SECRET_KEY);
    expect(await runExportCommand({ keys, read, file: target, stderr })).toBe(false);
    expect(stderr.text()).toMatch(
      /^export failed: cannot decrypt the key of account "\w+": SECRET_KEY \(or secret\.key\) is not the secret the store was written with\n$/,
    );
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(source.dir).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it('says so when the file cannot be written', async () => {
    const stderr = capture();
    const target = join(source.dir, 'no-such-dir', 'out.ndjson');
    expect(await runExportCommand({ keys: source.keys, read, file: target, stderr })).toBe(false);
    expect(stderr.text()).toMatch(/^export failed: .*no such file or directory/);
  });
});

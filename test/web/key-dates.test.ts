import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { type Jar, logIn, tokenIn } from './workspace-forms.js';

/** The Settings page's date of the key: when an import set it, or when this service made it. */

const PASSWORD = 'a long enough password';

const account = (username: string, fields: Record<string, unknown> = {}) => ({
  type: 'account',
  username,
  email: `${username}@example.com`,
  registered_at: '2023-01-02T03:04:05Z',
  ...fields,
});

/** The date as the page writes it, in the page's language. */
const dateTag = (at: number, locale: string) =>
  `<time id="key-created" datetime="${new Date(at).toISOString()}">${new Intl.DateTimeFormat(locale, {
    dateStyle: 'long',
    timeStyle: 'long',
    timeZone: 'UTC',
  }).format(new Date(at))}</time>`;

/** Runs SQL on the app's store over a connection of its own, as an older version left it. */
async function onStore(t: TestApp, statement: string): Promise<void> {
  const url = t.env.DATABASE_URL as string;
  if (t.kind === 'sqlite') {
    const db = new BetterSqlite3(url.slice('sqlite:'.length));
    try {
      db.exec(statement);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describe.each(TEST_STORES)('the key date on the Settings page (%s)', (kind) => {
  let t: TestApp;
  let hash: string;

  beforeAll(async () => {
    hash = await hashPassword(PASSWORD);
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const settingsOf = async (base: string, jar: Jar) =>
    (await t.app.inject({ url: `${base}/workspace/settings`, cookies: jar })).body;

  /** Imports the lines, and when they were written (between the two times). */
  const importTimed = async (lines: object[]) => {
    const before = Date.now();
    await t.importLines(lines);
    return { before, after: Date.now() };
  };

  it('says when an import set the key, keeps that date while the key stays, and "Created" once rotated', async () => {
    const first = await importTimed([account('ivy', { api_key: 'ivy-key-0123456789abcdef', password_hash: hash })]);
    const imported = await t.store.keyDate('ivy');
    expect(imported?.origin).toBe('imported');
    const importedAt = imported?.at as number;
    expect(importedAt).toBeGreaterThanOrEqual(first.before);
    expect(importedAt).toBeLessThanOrEqual(first.after);

    const { jar } = await logIn(t.app, '', 'ivy', PASSWORD);
    expect(await settingsOf('', jar)).toContain(`<dt>Imported on</dt>\n      <dd>${dateTag(importedAt, 'en-GB')}</dd>`);
    const { jar: ptJar } = await logIn(t.app, '/pt', 'ivy', PASSWORD);
    expect(await settingsOf('/pt', ptJar)).toContain(
      `<dt>Importada em</dt>\n      <dd>${dateTag(importedAt, 'pt-BR')}</dd>`,
    );

    // The same key again (and another field changed): the key did not arrive again.
    await t.importLines([
      account('ivy', { api_key: 'ivy-key-0123456789abcdef', email: 'ivy@example.org', password_hash: hash }),
    ]);
    expect(await t.store.keyDate('ivy')).toEqual({ at: importedAt, origin: 'imported' });
    expect(await settingsOf('', jar)).toContain(`<dt>Imported on</dt>\n      <dd>${dateTag(importedAt, 'en-GB')}</dd>`);

    // A rotation in the workspace: made here.
    const settings = await settingsOf('', jar);
    const asked = await t.app.inject({
      method: 'POST',
      url: '/workspace/settings/generate',
      cookies: jar,
      payload: { _csrf: tokenIn(settings) },
    });
    expect(asked.statusCode).toBe(303);
    const confirm = await t.app.inject({ url: '/workspace/settings/generate', cookies: jar });
    const before = Date.now();
    const posted = await t.app.inject({
      method: 'POST',
      url: '/workspace/settings/generate/confirm',
      cookies: jar,
      payload: { _csrf: tokenIn(confirm.body) },
    });
    expect(posted.statusCode).toBe(303);
    const after = Date.now();
    const made = await t.store.keyDate('ivy');
    expect(made?.origin).toBe('made');
    const madeAt = made?.at as number;
    expect(madeAt).toBeGreaterThanOrEqual(before);
    expect(madeAt).toBeLessThanOrEqual(after);
    const rotated = await settingsOf('', jar);
    expect(rotated).toContain(`<dt>Created</dt>\n      <dd>${dateTag(madeAt, 'en-GB')}</dd>`);
    expect(rotated).not.toContain('Imported on');
    expect(await settingsOf('/pt', ptJar)).toContain(`<dt>Criada em</dt>\n      <dd>${dateTag(madeAt, 'pt-BR')}</dd>`);

    // An import without a key keeps the made key and its date; one with another key dates that one.
    await t.importLines([account('ivy', { email: 'ivy@example.net', password_hash: hash })]);
    expect(await t.store.keyDate('ivy')).toEqual({ at: madeAt, origin: 'made' });
    const again = await importTimed([account('ivy', { api_key: 'ivy-key-from-the-shop-0002', password_hash: hash })]);
    const reimported = await t.store.keyDate('ivy');
    expect(reimported?.origin).toBe('imported');
    expect(reimported?.at).toBeGreaterThanOrEqual(again.before);
    expect(reimported?.at).toBeLessThanOrEqual(again.after);
    expect(await settingsOf('', jar)).toContain(
      `<dt>Imported on</dt>\n      <dd>${dateTag(reimported?.at as number, 'en-GB')}</dd>`,
    );
  });

  it('dates a new account imported without a key (given one) and each account of a batch', async () => {
    const { before, after } = await importTimed([
      account('ned', { password_hash: hash }),
      account('ora', { api_key: 'ora-key-0123456789abcdef' }),
    ]);
    for (const username of ['ned', 'ora']) {
      const date = await t.store.keyDate(username);
      expect(date?.origin, username).toBe('imported');
      expect(date?.at).toBeGreaterThanOrEqual(before);
      expect(date?.at).toBeLessThanOrEqual(after);
    }
  });

  it('says "Not recorded" only for a key imported before imports were dated', async () => {
    await t.importLines([account('old', { api_key: 'old-key-0123456789abcdef', password_hash: hash })]);
    // As a version without dated imports left it: no row for the imported key.
    await onStore(t, "DELETE FROM key_dates WHERE username = 'old'");
    expect(await t.store.keyDate('old')).toBeUndefined();
    const { jar } = await logIn(t.app, '', 'old', PASSWORD);
    expect(await settingsOf('', jar)).toContain(
      '<dt>Created</dt>\n      <dd class="quiet-text">Not recorded (the key was imported)</dd>',
    );
    const { jar: ptJar } = await logIn(t.app, '/pt', 'old', PASSWORD);
    expect(await settingsOf('/pt', ptJar)).toContain(
      '<dt>Criada em</dt>\n      <dd class="quiet-text">Não registrada (a chave foi importada)</dd>',
    );
    // Imported again unchanged: it did not arrive now, so still no date.
    await t.importLines([account('old', { api_key: 'old-key-0123456789abcdef', password_hash: hash })]);
    expect(await t.store.keyDate('old')).toBeUndefined();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from '../importer/import-fixtures.js';
import { type Jar, logIn, tokenIn } from './workspace-forms.js';

/**
 * The Settings page's "More keys" card, in both languages: the named keys in a table, a key added
 * (shown once, on the page that made it), revoked at once; the examples use a validate key.
 */
const PASSWORD = 'a long enough password';
const MAIN_KEY = 'named-keys-page-main-0123456789';
const CODE = 'ABC-123_x';

const dateText = (at: number, locale: string) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'long', timeZone: 'UTC' }).format(new Date(at));

describe.each(TEST_STORES)('named keys on the Settings page (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      lines: [
        accountLine({ api_key: MAIN_KEY, password_hash: await hashPassword(PASSWORD) }),
        itemLine(),
        purchaseLine({ code: CODE }),
      ],
    });
  });
  afterAll(() => t.close());

  const settings = async (base: string, jar: Jar) =>
    (await t.app.inject({ url: `${base}/workspace/settings`, cookies: jar })).body;
  const post = async (base: string, path: string, jar: Jar, fields: Record<string, string>) => {
    const page = await settings(base, jar);
    const response = await t.app.inject({
      method: 'POST',
      url: `${base}/workspace/settings${path}`,
      cookies: jar,
      payload: { _csrf: tokenIn(page), ...fields },
    });
    expect([response.statusCode, response.headers.location]).toEqual([303, `${base}/workspace/settings`]);
  };

  it.each([
    ['en', '', 'en-GB'],
    ['pt', '/pt', 'pt-BR'],
  ] as const)(
    'adds a key shown once, lists it, uses it in the examples, and revokes it (%s)',
    async (lang, base, locale) => {
      const { jar } = await logIn(t.app, base, 'jdoe', PASSWORD);
      const empty = await settings(base, jar);
      expect(empty).toContain(
        lang === 'en' ? '<h2 id="named-keys-heading">More keys</h2>' : '<h2 id="named-keys-heading">Mais chaves</h2>',
      );
      expect(empty).toContain(
        lang === 'en'
          ? '<p class="quiet-text" id="no-named-keys">No other key yet.</p>'
          : '<p class="quiet-text" id="no-named-keys">Nenhuma outra chave ainda.</p>',
      );
      expect(empty).not.toContain('id="example-key-note"');

      // A bad name is said, and what was typed is kept.
      await post(base, '/keys', jar, { name: ' ', scope: 'validate' });
      const refused = await settings(base, jar);
      expect(refused).toContain(
        `<p class="error" role="alert" id="named-key-error">${lang === 'en' ? 'Give the key a name of 1 to 64 characters.' : 'Dê à chave um nome de 1 a 64 caracteres.'}</p>`,
      );
      expect(await t.store.namedKeys('jdoe')).toEqual([]);

      const name = `Installer ${lang}`;
      await post(base, '/keys', jar, { name, scope: 'validate' });
      const [made] = await t.store.namedKeys('jdoe');
      if (!made) throw new Error('no key made');
      const shown = await settings(base, jar);
      const key =
        /<code class="key" id="named-key" data-revealed="true" aria-label="[^"]+">([0-9a-f]{64})<\/code>/.exec(
          shown,
        )?.[1];
      if (key === undefined) throw new Error('the new key is not on the page');
      expect(shown).toContain(
        lang === 'en'
          ? `<p class="notice" role="status" id="named-key-created">The key ${name} is shown this once: copy it now and keep it safe.</p>`
          : `<p class="notice" role="status" id="named-key-created">A chave ${name} é mostrada só desta vez: copie-a agora e guarde-a com cuidado.</p>`,
      );
      // The table's row: name, scope, created, never used, a revoke button naming the key.
      expect(shown).toContain(
        `<tr id="${made.id}">\n        <th scope="row">${name}</th>\n        <td><span class="badge active">validate</span></td>\n` +
          `        <td><time datetime="${new Date(made.createdAt).toISOString()}">${dateText(made.createdAt, locale)}</time></td>\n` +
          `        <td><span class="quiet-text">${lang === 'en' ? 'Never' : 'Nunca'}</span></td>`,
      );
      expect(shown).toContain(`action="${base}/workspace/settings/keys/${made.id}/revoke"`);
      expect(shown).toContain(`aria-label="${lang === 'en' ? 'Revoke the key' : 'Revogar a chave'} ${name}"`);
      // The examples use the validate key, in clear on this page only.
      expect(shown).toContain(`  -H &#39;X-Api-Key: ${key}&#39; \\`);
      expect(shown).toContain(
        `<p class="quiet-text" id="example-key-note">${lang === 'en' ? `The examples use your validate key ${name}.` : `Os exemplos usam a sua chave validate ${name}.`}</p>`,
      );

      // The key works as a validate key.
      const validation = await t.app.inject({
        method: 'POST',
        url: `${base}/api/purchases/validation`,
        headers: { 'x-api-key': key },
        payload: { purchase_code: CODE },
      });
      expect(validation.statusCode).toBe(200);

      // Shown once: the next page has it masked in the examples, and nowhere in clear.
      const again = await settings(base, jar);
      expect(again).not.toContain(key);
      expect(again).not.toContain('id="named-key-created"');
      expect(again).toContain(`  -H &#39;X-Api-Key: ${'•'.repeat(20)}${key.slice(-4)}&#39; \\`);

      await post(base, `/keys/${made.id}/revoke`, jar, {});
      const revoked = await settings(base, jar);
      expect(revoked).toContain(
        lang === 'en'
          ? `<p class="notice" role="status" id="named-key-revoked">The key ${name} was revoked: it no longer works.</p>`
          : `<p class="notice" role="status" id="named-key-revoked">A chave ${name} foi revogada: ela não funciona mais.</p>`,
      );
      expect(revoked).not.toContain(`<tr id="${made.id}">`);
      expect(revoked).not.toContain('id="example-key-note"');
      const after = await t.app.inject({
        method: 'POST',
        url: `${base}/api/purchases/validation`,
        headers: { 'x-api-key': key },
        payload: { purchase_code: CODE },
      });
      expect(after.statusCode).toBe(401);
    },
  );

  it('refuses a revoke without the CSRF token; a full key is not used by the examples', async () => {
    const { jar } = await logIn(t.app, '', 'jdoe', PASSWORD);
    await post('', '/keys', jar, { name: 'Back office', scope: 'full' });
    const made = (await t.store.namedKeys('jdoe')).find((key) => key.name === 'Back office');
    if (!made) throw new Error('no key made');
    const forged = await t.app.inject({
      method: 'POST',
      url: `/workspace/settings/keys/${made.id}/revoke`,
      cookies: jar,
      payload: {},
    });
    expect(forged.statusCode).toBe(403);
    expect((await t.store.namedKeys('jdoe')).map((key) => key.id)).toContain(made.id);
    // A full key is not used by the examples.
    expect(await settings('', jar)).not.toContain('id="example-key-note"');
  });
});

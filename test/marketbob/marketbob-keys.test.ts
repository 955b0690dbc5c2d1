import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportNdjson } from '../../src/exporter/export-ndjson.js';
import type { MarketbobDb } from '../../src/marketbob/marketbob-connection.js';
import { openMarketbob } from '../../src/marketbob/marketbob-connection.js';
import { syncMarketbob } from '../../src/marketbob/marketbob-sync.js';
import { readSnapshot } from '../../src/store/snapshot.js';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { keep, logIn, tokenIn } from '../web/workspace-forms.js';
import {
  createMarketbobDatabase,
  insertSettings,
  type MarketbobTestDatabase,
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob-database.js';

const TOKEN = 'admin-token-0123456789abcdef';
const LOCAL_KEY = 'a_local_key_0123456789abcdef';
const REFUSED = {
  code: 'key_managed_by_marketbob',
  message:
    "This account's key is MarketBob's: regenerate it in MarketBob, and the bridge takes the new key (and ends this one) within seconds",
};

/**
 * MarketBob owns the keys of the accounts it gives us: a key generated on our side (admin API,
 * workspace, CLI) for one of them is refused, and the workspace says where to change it. An
 * account that did not come from MarketBob rotates as before.
 */
describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)(
  'keys of MarketBob accounts are made in MarketBob (%s)',
  (kind) => {
    let database: MarketbobTestDatabase;
    let db: MarketbobDb;
    let test: TestApp;
    const sellerKey = newApiKey();

    beforeAll(async () => {
      database = await createMarketbobDatabase();
      await insertSettings(database, false);
      // Both log in with MarketBob's password ("secret-password", the fixtures' bcrypt hash).
      await database.insert('users', userRow({ username: 'seller', api_key: sellerKey }));
      await database.insert('users', userRow({ username: 'keyless', api_key: null }));
      db = openMarketbob(database.url);
      test = await createTestApp(kind, { env: { ADMIN_TOKEN: TOKEN } });
      const synced = await syncMarketbob(db, test.store, test.keys, {
        url: database.url,
        pollSeconds: 2,
        mediaBaseUrl: 'https://market.example.com',
        timezone: 'UTC',
        reconcileMinutes: 10,
        behindSeconds: 30,
      });
      expect(synced.ok).toBe(true);
      await test.importLines([
        {
          type: 'account',
          username: 'local',
          email: 'l@example.com',
          api_key: LOCAL_KEY,
          registered_at: '2024-01-01T00:00:00Z',
        },
      ]);
    });
    afterAll(async () => {
      await db?.destroy();
      await test?.close();
      await database?.drop();
    });

    const rotate = (username: string) =>
      test.app.inject({
        method: 'POST',
        url: `/admin/v1/accounts/${username}/api-key?now=true`,
        headers: { authorization: `Bearer ${TOKEN}` },
      });

    it('the admin API refuses to rotate it (409), and the key goes on working', async () => {
      for (const username of ['seller', 'keyless']) {
        const answer = await rotate(username);
        expect(answer.statusCode).toBe(409);
        expect(answer.headers['x-error-code']).toBe('key_managed_by_marketbob');
        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(answer.json()).toEqual(REFUSED);
      }
      const details = await test.app.inject({
        method: 'GET',
        url: '/api/account/details',
        headers: { 'x-api-key': sellerKey },
      });
      expect(details.statusCode).toBe(200);
      // An account not from MarketBob rotates as it always did.
      const local = await rotate('local');
      expect(local.statusCode).toBe(200);
      expect((local.json() as { username: string }).username).toBe('local');
    });

    it('the workspace says to change it in the marketplace, offers no "Generate", and refuses a forged one', async () => {
      const { response, jar } = await logIn(test.app, '', 'seller', 'secret-password');
      expect(response.statusCode).toBe(303);
      const settings = await test.app.inject({ url: '/workspace/settings', cookies: jar });
      keep(jar, settings);
      expect(settings.statusCode).toBe(200);
      expect(settings.body).toContain(
        '<p id="key-from-marketplace">Your API key is managed by the marketplace you sell on. To replace it, generate a new key in your account settings there: the new key works here within seconds, and the old one stops.</p>',
      );
      expect(settings.body).not.toContain('/workspace/settings/generate');
      const confirm = await test.app.inject({ url: '/workspace/settings/generate', cookies: jar });
      expect(confirm.statusCode).toBe(303);
      expect(confirm.headers.location).toBe('/workspace/settings');
      const forged = await test.app.inject({
        method: 'POST',
        url: '/workspace/settings/generate/confirm',
        cookies: jar,
        payload: { _csrf: tokenIn(settings.body), end_old_key: '1' },
      });
      expect(forged.statusCode).toBe(303);
      expect(forged.headers.location).toBe('/workspace/settings');
      expect((await test.store.accountByUsername('seller'))?.key_cipher).not.toBe('');
      const still = await test.app.inject({
        method: 'GET',
        url: '/api/account/details',
        headers: { 'x-api-key': sellerKey },
      });
      expect(still.statusCode).toBe(200);

      const keyless = await logIn(test.app, '/pt', 'keyless', 'secret-password');
      const page = await test.app.inject({ url: '/pt/workspace/settings', cookies: keyless.jar });
      expect(page.body).toContain(
        '<p id="no-key">Esta conta ainda não tem chave de API. Gere uma nas configurações da sua conta no marketplace onde você vende: ela passa a funcionar aqui em segundos.</p>',
      );
    });

    it('the CLI refuses `keys rotate`, and `keys show` says an account has no key', async () => {
      const env = cleanEnv({ ...test.env });
      const rotated = await runCli(['keys', 'rotate', 'seller'], { cwd: test.dir, env });
      expect(rotated).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'refused: the key of account "seller" is MarketBob\'s: regenerate it in MarketBob, and the bridge takes the new key (and ends this one) within seconds\n',
      });
      expect(await runCli(['keys', 'show', 'keyless'], { cwd: test.dir, env })).toEqual({
        code: 1,
        stdout: '',
        stderr: `account "keyless" has no API key: its key is MarketBob's, and its MarketBob user has none (generate one there)\n`,
      });
      expect(await runCli(['keys', 'show', 'seller'], { cwd: test.dir, env })).toEqual({
        code: 0,
        stdout: `${sellerKey}\n`,
        stderr: '',
      });
    });

    it('an export writes the account without a key with no api_key, and the others with theirs', async () => {
      let text = '';
      const out = new Writable({
        write(chunk, _encoding, done) {
          text += String(chunk);
          done();
        },
      });
      await readSnapshot(test.config.store, (snapshot) => exportNdjson(snapshot, test.keys, out));
      const accounts = text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; username: string; api_key?: string })
        .filter((line) => line.type === 'account');
      expect(accounts.find((line) => line.username === 'keyless')).not.toHaveProperty('api_key');
      expect(accounts.find((line) => line.username === 'seller')?.api_key).toBe(sellerKey);
    });
  },
);

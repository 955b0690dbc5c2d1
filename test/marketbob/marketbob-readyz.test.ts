import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { answerTo } from '../helpers/http-answer.js';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { createTestDatabase, type StoreKind, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';
import {
  createMarketbobDatabase,
  eventually,
  insertSettings,
  itemRow,
  type MarketbobTestDatabase,
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob-database.js';

const TOKEN = 'admin-token-0123456789abcdef';
const started: Running[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const server of started) server.child.kill('SIGKILL');
  for (const cleanup of cleanups) await cleanup();
});

/** A request on a connection of its own, so that with WORKERS the primary hands each to the workers in turn. */
function send(port: number, path: string, headers: Record<string, string> = {}) {
  const outgoing = request({ host: '127.0.0.1', port, method: 'GET', path, headers, agent: false });
  const answer = answerTo(outgoing);
  outgoing.end();
  return answer;
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const setups: { kind: StoreKind; workers: number }[] = [
  { kind: 'sqlite', workers: 1 },
  ...TEST_STORES.map((kind) => ({ kind, workers: 2 })),
];

describe.skipIf(!TEST_MARIADB_URL).each(setups)(
  '/readyz and the lag metric with a MarketBob source ($kind, WORKERS=$workers)',
  ({ kind, workers }) => {
    it('say following, then behind while MarketBob is away (logged once), then following again', async () => {
      const database: MarketbobTestDatabase = await createMarketbobDatabase({ followerIndexes: true });
      cleanups.push(() => database.drop());
      const store: TestDatabase = await createTestDatabase(kind);
      cleanups.push(() => store.drop());
      const proxy = new TcpProxy('127.0.0.1', Number(new URL(TEST_MARIADB_URL ?? 'mysql://h:3306').port || 3306));
      await proxy.listen();
      cleanups.push(() => proxy.close());
      await insertSettings(database, false);
      const category = await database.insert('categories', { name: 'Scripts' });
      const seller = await database.insert('users', userRow({ username: 'seller', api_key: newApiKey() }));
      await database.insert('items', itemRow(seller, category));
      const through = new URL(database.url);
      through.host = `127.0.0.1:${proxy.port}`;
      const configPath = join(store.dir, 'config.json');
      writeFileSync(
        configPath,
        JSON.stringify({ marketbob: { mediaBaseUrl: 'https://market.example.com', pollSeconds: 0.5 } }),
      );

      const server = startNode('src/main.ts', [], {
        cwd: store.dir,
        env: cleanEnv({
          ...store.env,
          PORT: '0',
          METRICS_PORT: '0',
          ADMIN_TOKEN: TOKEN,
          WORKERS: String(workers),
          LOG_LEVEL: 'info',
          MARKETPLACE_CONFIG: configPath,
          MARKETBOB_DATABASE_URL: through.href,
        }),
      });
      started.push(server);
      const [metricsLine] = await server.waitFor(/^.*"msg":"metrics listening".*$/m, 60_000);
      const metricsPort = (JSON.parse(metricsLine) as { port: number }).port;
      const port =
        workers > 1
          ? (JSON.parse((await server.waitFor(/^.*"msg":"all workers listening".*$/m, 60_000))[0]) as { port: number })
              .port
          : Number((await server.waitFor(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/, 60_000))[1]);
      const readyz = async () => {
        const answer = await send(port, '/readyz');
        expect(answer.status).toBe(200);
        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
        return JSON.parse(answer.body) as { status: string; marketbob: Record<string, unknown> };
      };
      const scrape = async () => {
        const answers = [
          await send(metricsPort, '/metrics'),
          await send(port, '/admin/v1/metrics', { authorization: `Bearer ${TOKEN}` }),
        ];
        for (const answer of answers) expect(answer.status).toBe(200);
        return answers.map((answer) => ({
          lag: sample(answer.body, 'marketbob_source_lag_seconds'),
          behind: sample(answer.body, 'marketbob_source_behind'),
        }));
      };

      // Synced before listening: following from the first answer, on every worker.
      for (let n = 0; n < 2 * workers; n++) {
        const body = await readyz();
        expect(body).toEqual({ status: 'ready', marketbob: { state: 'following', lag_seconds: expect.any(Number) } });
        expect(body.marketbob.lag_seconds).toBeLessThan(30);
      }
      for (const { lag, behind } of await scrape()) {
        expect(behind).toBe(0);
        expect(lag).toBeGreaterThanOrEqual(0);
        expect(lag).toBeLessThan(30);
      }

      await proxy.refuse();
      await server.waitFor(/marketbob: cannot follow the source/, 10_000);
      for (let n = 0; n < 2 * workers; n++) {
        expect(await readyz()).toEqual({
          status: 'ready',
          marketbob: { state: 'behind', lag_seconds: expect.any(Number), reason: 'source_unreachable' },
        });
      }
      for (const { behind } of await scrape()) expect(behind).toBe(1);
      // The API goes on serving meanwhile.
      const [row] = await database.query<{ api_key: string }>('SELECT api_key FROM users WHERE id = ?', [seller]);
      const details = await send(port, '/api/account/details', { 'x-api-key': String(row?.api_key) });
      expect(details.status).toBe(200);

      await proxy.restore();
      await eventually(async () => {
        for (let n = 0; n < 2 * workers; n++) expect((await readyz()).marketbob.state).toBe('following');
      }, 15_000);
      for (const { behind } of await scrape()) expect(behind).toBe(0);
      const log = server.stdout();
      expect(log.match(/marketbob: cannot follow the source/g)).toHaveLength(1);
      expect(log.match(/marketbob: the source answers again; caught up/g)).toHaveLength(1);
      expect(log).not.toContain(String(row?.api_key));

      server.child.kill('SIGTERM');
      expect(await server.exited()).toBe(0);
    }, 120_000);
  },
);

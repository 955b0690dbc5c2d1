import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { createTestDatabase, TEST_STORES } from '../helpers/test-database.js';

const cwd = mkdtempSync(join(tmpdir(), 'marketplace-hints-'));
const started: Running[] = [];

afterAll(() => {
  for (const server of started) server.child.kill('SIGKILL');
  rmSync(cwd, { recursive: true, force: true });
});

function start(extraEnv: Record<string, string> = {}, dir = cwd): Running {
  const server = startNode('src/main.ts', [], {
    cwd: dir,
    env: cleanEnv({ PORT: '0', LOG_LEVEL: 'warn', ...extraEnv }),
  });
  started.push(server);
  return server;
}

const EMPTY_HINT = [
  'The store has no seller yet. Add the first ones:',
  '  from an NDJSON file (format: docs/api.md#importing):',
  '    npm run cli -- import sellers.ndjson',
  "  or from a MarketBob marketplace's database (docs/marketbob.md):",
  '    MARKETBOB_DATABASE_URL=mysql://user:password@host/db npm run cli -- marketbob sync',
  '',
].join('\n');

/** Stops a server that printed its banner, and returns what it printed. */
async function stopped(server: Running): Promise<string> {
  server.child.kill('SIGTERM');
  expect(await server.exited(), server.stderr()).toBe(0);
  return server.stdout();
}

describe('every start says what to do next', () => {
  it('a later start with the demo data: how to see the key and set the password again', async () => {
    const first = start();
    await first.waitFor(/purchase_code=DEMO-VALID-0001'\n={78}\n/);
    expect(await stopped(first)).not.toContain('keys show demo-seller\nSet its');

    const second = start();
    await second.waitFor(/accounts set-password demo-seller\n/);
    const out = await stopped(second);
    expect(out).toContain(
      [
        'Stop with Ctrl-C.',
        'Demo data is in this store. See the key of "demo-seller" again:',
        '  npm run cli -- keys show demo-seller',
        'Set its workspace password again (then log in as demo-seller):',
        '  npm run cli -- accounts set-password demo-seller',
        '',
      ].join('\n'),
    );
    expect(out).not.toContain('API key of');
  });

  it.each(TEST_STORES)('an empty store (%s): how to add the first seller', async (kind) => {
    const database = await createTestDatabase(kind);
    try {
      const server = start(database.env, database.dir);
      await server.waitFor(/marketbob sync\n/);
      expect(await stopped(server)).toContain(`Stop with Ctrl-C.\n${EMPTY_HINT}`);
    } finally {
      await database.drop();
    }
  });
});

describe('start errors that guide', () => {
  let holder: Server | undefined;
  afterAll(() => holder?.close());

  it('a port in use: which one, and the PORT to change', async () => {
    const busy = createServer();
    holder = busy;
    const port = await new Promise<number>((resolve) => {
      busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port));
    });
    const server = start({ PORT: String(port), DATABASE_URL: `sqlite:${join(cwd, 'port.db')}` });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(
      `marketplace-api failed to start: port ${port} on 127.0.0.1 is already in use (another program, or this server started twice). ` +
        `Stop that program, or start on another port: PORT=${port + 1} npm start (HOST=127.0.0.1 is the address listened on)\n`,
    );
  });

  it('PostgreSQL refusing the connection: names DATABASE_URL and the host, never the password', async () => {
    const server = start({
      DATABASE_URL: 'postgres://postgres:hunter2-secret@127.0.0.1:1/none',
      SECRET_KEY: 'k'.repeat(32),
    });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(
      'marketplace-api failed to start: cannot use the PostgreSQL store at 127.0.0.1:1 (DATABASE_URL): the connection was refused: is PostgreSQL running there, on that port?\n',
    );
  });

  it('broken JSON in the config file: its line and column', async () => {
    const file = join(cwd, 'broken.json');
    writeFileSync(file, '{\n  "support": true,\n  "variants": [\n    { "lang": "en", }\n  ]\n}\n');
    const server = start({ MARKETPLACE_CONFIG: file });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(
      `invalid configuration:\n  - ${file}: not valid JSON at line 4, column 21: Expected double-quoted property name\n`,
    );
  });

  it('four mistakes in one variant: four lines, in one round', async () => {
    const file = join(cwd, 'four.json');
    writeFileSync(
      file,
      JSON.stringify({
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD' },
          { lang: 'fr', baseUrl: 'pt', currency: 'euro', rate: '0' },
        ],
      }),
    );
    const server = start({ MARKETPLACE_CONFIG: file });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(
      [
        'invalid configuration:',
        '  - variants.1.lang: Expected one of "en", "pt"',
        "  - variants.1.currency: Expected string to match '^[A-Z]{3}$'",
        '  - variants[1] (fr).baseUrl: must start with "/" or be an http(s) URL',
        '  - variants[1] (fr).rate: must be a positive decimal such as "5.25"',
        '',
      ].join('\n'),
    );
  });
});

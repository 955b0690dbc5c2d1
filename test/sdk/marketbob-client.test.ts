import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as esm from '../../sdk/dist/index.js';
import { marketbobMessages } from '../../src/variants/marketbob-texts.js';
import {
  MARKETBOB_ACCOUNT,
  MARKETBOB_BODIES,
  MARKETBOB_PURCHASE,
  MARKETBOB_RESOURCES,
} from '../helpers/marketbob-bodies.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const cjs = createRequire(import.meta.url)('../../sdk/dist/cjs/index.js') as typeof esm;

const KEY = 'k3y-with+signs&more';
const AUTHORLESS_KEY = 'not-an-author';
const CODE = MARKETBOB_PURCHASE.purchase_code;

interface Seen {
  method: string;
  url: string;
  apiKeyHeader: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** The body of a request, read whole. */
async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A small server answering as MarketBob's own API does, under `/` in English and `/pt` in
 * Portuguese: MarketBob's bodies for the key KEY, its errors otherwise. It reads the key and the
 * parameters where MarketBob does (query string, JSON body), and nowhere else.
 */
function marketbobServer(seen: Seen[]): Server {
  return createServer(async (request, response) => {
    const body = await bodyOf(request);
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      apiKeyHeader: request.headers['x-api-key'] as string | undefined,
      contentType: request.headers['content-type'],
      body,
    });
    const url = new URL(request.url ?? '/', 'http://localhost');
    const pt = url.pathname.startsWith('/pt/');
    const path = pt ? url.pathname.slice(3) : url.pathname;
    const messages = marketbobMessages(pt ? 'pt' : 'en');
    const fields: Record<string, string> = {
      ...Object.fromEntries(url.searchParams),
      ...(body ? JSON.parse(body) : {}),
    };
    const answer = (status: number, text: string) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(text);
    };
    const error = (status: number, msg: string) => answer(status, JSON.stringify({ status: 'error', msg }));
    const key = fields.api_key?.trim();
    if (!['/api/account/details', '/api/items/all', '/api/items/item', '/api/purchases/validation'].includes(path)) {
      response.writeHead(404, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>Not Found</title>');
      return;
    }
    if (!key) return error(400, messages.apiKeyRequired);
    if (path === '/api/account/details') {
      return key === KEY ? answer(200, MARKETBOB_BODIES.accountDetails) : error(401, messages.invalidRequest);
    }
    if (path === '/api/items/all') {
      return key === KEY ? answer(200, MARKETBOB_BODIES.itemsAll) : error(404, messages.noItemsFound);
    }
    if (path === '/api/items/item') {
      const id = fields.item_id?.trim();
      if (!id) return error(400, messages.itemIdRequired);
      if (!/^-?\d+$/.test(id)) return error(400, messages.itemIdNotInteger);
      return key === KEY && id === String(MARKETBOB_RESOURCES.audioItem.id)
        ? answer(200, MARKETBOB_BODIES.itemsItem)
        : error(404, messages.itemNotFound);
    }
    const code = fields.purchase_code?.trim();
    if (!code) return error(400, messages.purchaseCodeRequired);
    return key === KEY && code.toLowerCase() === CODE.toLowerCase()
      ? answer(200, MARKETBOB_BODIES.purchaseValidation)
      : error(404, messages.invalidPurchaseCode);
  });
}

/** What a call threw, for assertions on the error's fields. */
async function thrown(call: Promise<unknown>, sdk: typeof esm): Promise<esm.MarketplaceApiError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(sdk.MarketplaceApiError);
  return error as esm.MarketplaceApiError;
}

describe("the SDK's marketbob client against a server in MarketBob's shape (real HTTP)", () => {
  const seen: Seen[] = [];
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = marketbobServer(seen);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  });

  describe.each([
    ['ES module build', esm],
    ['CommonJS build', cjs],
  ] as const)('%s', (_name, sdk) => {
    describe.each(['en', 'pt'] as const)('%s', (lang) => {
      const base = lang === 'pt' ? '/pt' : '';
      const messages = marketbobMessages(lang);
      const client = (apiKey = KEY) => sdk.createClient({ baseUrl: `${origin}${base}/`, apiKey, shape: 'marketbob' });

      it("answers MarketBob's resources as they are: NULLs, floats, tags, keyed screenshots", async () => {
        expect(await client().account()).toEqual(MARKETBOB_ACCOUNT);
        expect(await client().items()).toEqual(JSON.parse(MARKETBOB_BODIES.itemsAll).items);
        expect(await client().item(MARKETBOB_RESOURCES.audioItem.id)).toEqual(MARKETBOB_RESOURCES.audioItem);
        expect(await client().validatePurchase(CODE.toLowerCase())).toEqual(MARKETBOB_PURCHASE);
      });

      it('reads MarketBob\'s "none" answers as [] and null', async () => {
        expect(await client(AUTHORLESS_KEY).items()).toEqual([]);
        expect(await client().item(999)).toBeNull();
        expect(await client(AUTHORLESS_KEY).item(MARKETBOB_RESOURCES.audioItem.id)).toBeNull();
        expect(await client().validatePurchase('NO-SUCH-CODE')).toBeNull();
      });

      it('throws the other answers with their status and message', async () => {
        const unknown = await thrown(client(AUTHORLESS_KEY).account(), sdk);
        expect({ ...unknown, message: unknown.message }).toEqual({
          name: 'MarketplaceApiError',
          httpStatus: 401,
          status: 'error',
          msg: messages.invalidRequest,
          retryAfter: undefined,
          message: `401 ${messages.invalidRequest}`,
        });
        const blank = await thrown(client().validatePurchase('  '), sdk);
        expect([blank.httpStatus, blank.status, blank.msg]).toEqual([400, 'error', messages.purchaseCodeRequired]);
        const noKey = await thrown(client('').items(), sdk);
        expect([noKey.httpStatus, noKey.status, noKey.msg]).toEqual([400, 'error', messages.apiKeyRequired]);
        // A 404 that is not MarketBob's "none" (a wrong base URL) throws rather than answering [].
        const wrongBase = sdk.createClient({ baseUrl: `${origin}${base}/v2`, apiKey: KEY, shape: 'marketbob' });
        const error = await thrown(wrongBase.items(), sdk);
        expect([error.httpStatus, error.status, error.msg]).toEqual([
          404,
          '',
          '<!DOCTYPE html><title>Not Found</title>',
        ]);
      });
    });

    it('sends the key as MarketBob reads it: api_key in the query of a GET, in the JSON body of a POST', async () => {
      seen.length = 0;
      const client = sdk.createClient({ baseUrl: origin, apiKey: KEY, shape: 'marketbob' });
      await client.account();
      await client.items();
      await client.item(MARKETBOB_RESOURCES.audioItem.id);
      await client.validatePurchase(CODE);
      const key = encodeURIComponent(KEY);
      expect(seen).toEqual([
        {
          method: 'GET',
          url: `/api/account/details?api_key=${key}`,
          apiKeyHeader: undefined,
          contentType: undefined,
          body: '',
        },
        {
          method: 'GET',
          url: `/api/items/all?api_key=${key}`,
          apiKeyHeader: undefined,
          contentType: undefined,
          body: '',
        },
        {
          method: 'GET',
          url: `/api/items/item?item_id=${MARKETBOB_RESOURCES.audioItem.id}&api_key=${key}`,
          apiKeyHeader: undefined,
          contentType: undefined,
          body: '',
        },
        {
          method: 'POST',
          url: '/api/purchases/validation',
          apiKeyHeader: undefined,
          contentType: 'application/json',
          body: JSON.stringify({ api_key: KEY, purchase_code: CODE }),
        },
      ]);
    });

    it('leaves the contract client as it was: the key in the X-Api-Key header only', async () => {
      seen.length = 0;
      const client = sdk.createClient({ baseUrl: origin, apiKey: KEY });
      await thrown(client.items(), sdk);
      await thrown(client.validatePurchase(CODE), sdk);
      expect(seen.map(({ method, url, apiKeyHeader, body }) => ({ method, url, apiKeyHeader, body }))).toEqual([
        { method: 'GET', url: '/api/items/all', apiKeyHeader: KEY, body: '' },
        {
          method: 'POST',
          url: '/api/purchases/validation',
          apiKeyHeader: KEY,
          body: JSON.stringify({ purchase_code: CODE }),
        },
      ]);
    });
  });

  it("runs the README's example for a server in MarketBob's shape, as written", async () => {
    const readme = readFileSync(join(ROOT, 'sdk', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf("## A server in MarketBob's shape"));
    const snippet = /```js\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(snippet).toContain("shape: 'marketbob'");
    const dir = mkdtempSync(join(tmpdir(), 'sdk-marketbob-readme-'));
    try {
      const script = join(dir, 'check.mjs');
      writeFileSync(
        script,
        snippet
          .replace("'@marketplace-api/client'", JSON.stringify(join(ROOT, 'sdk', 'dist', 'index.js')))
          .replace("'https://api.example.com/mb'", JSON.stringify(origin)),
      );
      const check = async (code: string) =>
        (await run(process.execPath, [script, code], { env: { ...process.env, MARKETPLACE_API_KEY: KEY } })).stdout;
      expect(await check(CODE)).toBe(`Licensed: Regular license of ${MARKETBOB_PURCHASE.item.name}\n`);
      expect(await check('NO-SUCH-CODE')).toBe('Not a valid purchase code\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the SDK's types for a marketbob client", () => {
  it('give the MarketBob resources through import and through require; no contract-only method', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-marketbob-types-'));
    try {
      const esmPath = JSON.stringify(join(ROOT, 'sdk', 'dist', 'index.js'));
      const cjsPath = JSON.stringify(join(ROOT, 'sdk', 'dist', 'cjs', 'index.js'));
      const body = `
const client = createClient({ baseUrl: 'http://x', apiKey: 'k', shape: 'marketbob' });
export const purchase: Promise<MarketbobPurchase | null> = client.validatePurchase('c');
export const item: Promise<MarketbobItem | null> = client.item(7);
export const tags: Promise<string | undefined> = client.item(7).then((found) => found?.tags);
export const heading: Promise<string | null> = client.account().then((account) => account.profile.heading);
// @ts-expect-error: MarketBob's API has no activity endpoint
client.purchaseActivity('c');
// @ts-expect-error: a MarketBob purchase comes as it is, its tags a string
export const list: Promise<string[] | undefined> = client.validatePurchase('c').then((found) => found?.item.tags);
const contract = createClient({ baseUrl: 'http://x', apiKey: 'k' });
export const contractTags: Promise<string[] | undefined> = contract.item(7).then((found) => found?.tags);
`;
      writeFileSync(
        join(dir, 'typed.mts'),
        `import { createClient, type MarketbobItem, type MarketbobPurchase } from ${esmPath};\n${body}`,
      );
      writeFileSync(
        join(dir, 'typed.cts'),
        `import { createClient, type MarketbobItem, type MarketbobPurchase } from ${cjsPath};\n${body}`,
      );
      const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
      const args = ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022', '--types', ''];
      const { stdout } = await run(tsc, [...args, 'typed.mts', 'typed.cts'], { cwd: dir }).catch(
        (error: { stdout: string }) => ({ stdout: error.stdout }),
      );
      expect(stdout).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

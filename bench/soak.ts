import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FIFTY_SELLER } from './bench-sellers.js';
import { BENCH_SECRET, prepareBenchStore } from './bench-store.js';
import {
  accountApiKey,
  accountLine,
  dataset,
  itemAccountIndex,
  itemIdAt,
  itemLine,
  purchaseCode,
  purchaseItemIndex,
  purchaseLine,
} from './generate-data.js';
import { memoryOf, ROOT, startProcess, startScript } from './server-process.js';

/**
 * `npm run soak`: the real server (the `npm start` build) under a mixed load on loopback for a
 * given time, to see that it stays up, never answers 5xx and does not grow. Valid and invalid
 * requests, unknown keys, missing items, bodies too large, and slow clients that send their
 * headers and then dribble their body (some give up half-way). It stops by itself, prints the
 * requests by status, p50/p99 and the server's RSS, and exits non-zero on any 5xx, on RSS growth
 * over 10 % after the warm-up, or when the server dies.
 */

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '1' },
    connections: { type: 'string', default: '32' },
    'slow-clients': { type: 'string', default: '8' },
    // Time between two bytes of a slow client's body.
    'dribble-ms': { type: 'string', default: '100' },
    purchases: { type: 'string', default: '100000' },
  },
});
const DURATION_MS = Number(args.minutes) * 60_000;
const CONNECTIONS = Number(args.connections);
const SLOW_CLIENTS = Number(args['slow-clients']);
const DRIBBLE_MS = Number(args['dribble-ms']);
const MAX_RSS_GROWTH = 0.1;
// After the working sets are cached, the whole mix runs a while before RSS is taken: V8's heap
// and the allocator's arenas settle to the load's size in the first tens of seconds.
const MIXED_WARMUP_MS = Math.max(30_000, Math.min(60_000, DURATION_MS / 5));
const data = dataset({ purchases: Number(args.purchases) });

const log = (line: string) => process.stdout.write(`${line}\n`);
const random = (n: number) => Math.floor(Math.random() * n);
const pick = <T>(list: readonly T[]) => list[random(list.length)] as T;
const hex = (bytes: number) => Array.from({ length: bytes }, () => random(256).toString(16).padStart(2, '0')).join('');

// ---- what to ask ----

const accountActive = (index: number) => accountLine(data, index).status === 'active';

function sample<T>(size: number, draw: () => T | undefined): T[] {
  const found: T[] = [];
  while (found.length < size) {
    const value = draw();
    if (value !== undefined) found.push(value);
  }
  return found;
}

// Working sets, as sellers' software asks the same codes, keys and items again and again. The
// warm-up asks each once, so the server's caches hold them before RSS is first taken: growth
// after that is not the caches filling.
const validPurchases = sample(2_000, () => {
  const index = random(data.purchases);
  const owner = itemAccountIndex(data, purchaseItemIndex(data, index));
  if (purchaseLine(data, index).status !== 'active' || !accountActive(owner)) return undefined;
  return { key: accountApiKey(data, owner), code: purchaseCode(data, index) };
});
const activeKeys = sample(500, () => {
  const index = random(data.accounts);
  return accountActive(index) ? accountApiKey(data, index) : undefined;
});
const approvedItems = sample(2_000, () => {
  const index = random(data.items);
  const owner = itemAccountIndex(data, index);
  if (itemLine(data, index).status !== 'approved' || !accountActive(owner)) return undefined;
  return { key: accountApiKey(data, owner), id: itemIdAt(index) };
});
const validPurchase = () => pick(validPurchases);
const activeKey = () => pick(activeKeys);
const approvedItem = () => pick(approvedItems);

interface Ask {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

const json = { 'content-type': 'application/json' };
const base = () => pick(['', '/pt']);

/** The mix, by weight: mostly what sellers' software asks, and a good share of what it gets wrong. */
const MIX: readonly (readonly [number, () => Ask])[] = [
  [
    30,
    () => {
      const { key, code } = validPurchase();
      const path = `${base()}/api/purchases/validation`;
      return {
        method: 'POST',
        path,
        headers: { ...json, 'x-api-key': key },
        body: JSON.stringify({ purchase_code: code }),
      };
    },
  ],
  [
    5,
    () => {
      const { key, code } = validPurchase();
      const body = new URLSearchParams({ api_key: key, purchase_code: code }).toString();
      const headers = { 'content-type': 'application/x-www-form-urlencoded' };
      return { method: 'POST', path: `${base()}/api/purchases/validation`, headers, body };
    },
  ],
  [
    15,
    () => ({
      method: 'POST',
      path: `${base()}/api/purchases/validation`,
      headers: { ...json, authorization: `Bearer ${activeKey()}` },
      body: JSON.stringify({ purchase_code: `${hex(4)}-dead-4bad-8bad-${hex(6)}` }),
    }),
  ],
  [10, () => ({ method: 'GET', path: `${base()}/api/account/details`, headers: { 'x-api-key': hex(32) } })],
  [
    10,
    () => ({
      method: 'GET',
      path: `${base()}/api/items/item?item_id=${1 + random(1e9)}`,
      headers: { 'x-api-key': activeKey() },
    }),
  ],
  [10, () => ({ method: 'GET', path: `${base()}/api/account/details`, headers: { 'x-api-key': activeKey() } })],
  [
    10,
    () => {
      const { key, id } = approvedItem();
      return { method: 'GET', path: `${base()}/api/items/item?item_id=${id}`, headers: { 'x-api-key': key } };
    },
  ],
  [5, () => ({ method: 'GET', path: `${base()}/api/items/all`, headers: { 'x-api-key': FIFTY_SELLER.apiKey } })],
  [
    4,
    () => ({
      method: 'POST',
      path: `${base()}/api/purchases/validation`,
      headers: { ...json, 'x-api-key': activeKey() },
      body: pick(['{"purchase_code":', '{"purchase_code":["a","b"]}', '', '[]', '{"purchase_code":{"__proto__":1}}']),
    }),
  ],
  [
    1,
    () => ({
      method: 'POST',
      path: `${base()}/api/purchases/validation`,
      headers: { ...json, 'x-api-key': activeKey() },
      body: JSON.stringify({ purchase_code: 'x'.repeat(70_000) }),
    }),
  ],
];
const totalWeight = MIX.reduce((sum, [weight]) => sum + weight, 0);

function nextAsk(): Ask {
  let roll = random(totalWeight);
  for (const [weight, make] of MIX) {
    roll -= weight;
    if (roll < 0) return make();
  }
  return (MIX[0] as (typeof MIX)[number])[1]();
}

// ---- counting ----

const warmUpStatuses = new Map<string, number>();
const statuses = new Map<string, number>();
const slowOutcomes = new Map<string, number>();
const latencies: number[] = [];
let networkErrors = 0;
const count = (map: Map<string, number>, key: string, n = 1) => map.set(key, (map.get(key) ?? 0) + n);

const byStatus = (map: Map<string, number>) =>
  [...map]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number);
}

// ---- clients ----

/** Each code, key and item of the working sets once, and every other kind of ask a few times. */
function warmUpAsks(): Ask[] {
  const asks: Ask[] = [];
  for (const { key, code } of validPurchases) {
    asks.push({
      method: 'POST',
      path: '/api/purchases/validation',
      headers: { ...json, 'x-api-key': key },
      body: JSON.stringify({ purchase_code: code }),
    });
  }
  for (const key of activeKeys)
    asks.push({ method: 'GET', path: '/api/account/details', headers: { 'x-api-key': key } });
  for (const { key, id } of approvedItems) {
    asks.push({ method: 'GET', path: `/api/items/item?item_id=${id}`, headers: { 'x-api-key': key } });
  }
  for (const [, make] of MIX) for (let n = 0; n < 20; n++) asks.push(make());
  return asks;
}

/**
 * One connection asking one request after another while `next` has one. Each gets its own
 * loopback address (127.0.0.x), as distinct clients would have: the failure budget is per client.
 */
async function client(
  port: number,
  address: string,
  next: () => Ask | undefined,
  statuses: Map<string, number>,
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let ask = next(); ask !== undefined; ask = next()) {
    const started = performance.now();
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            localAddress: address,
            agent,
            method: ask.method,
            path: ask.path,
            headers: ask.headers,
          },
          (res) => {
            res.on('data', () => undefined);
            res.on('end', () => resolve(res.statusCode ?? 0));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(ask.body);
      });
      latencies.push(performance.now() - started);
      count(statuses, String(status));
    } catch {
      networkErrors++;
    }
  }
  agent.destroy();
}

/**
 * A slow client: the headers, then its body one byte every DRIBBLE_MS; one in four gives up
 * half-way and closes. Records what the server answered, or that it closed without answering.
 */
function slowRequest(port: number): Promise<void> {
  const { key, code } = validPurchase();
  const body = JSON.stringify({ purchase_code: code });
  const givesUp = random(4) === 0;
  const bytesToSend = givesUp ? Math.floor(body.length / 2) : body.length;
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (outcome: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      count(slowOutcomes, outcome);
      socket.destroy();
      resolve();
    };
    const dribble = () => {
      if (sent >= bytesToSend) {
        if (givesUp) finish('gave up half-way (on purpose)');
        return;
      }
      socket.write(body.slice(sent, sent + 1));
      sent++;
      timer = setTimeout(dribble, DRIBBLE_MS);
    };
    socket.on('connect', () => {
      socket.write(
        `POST /api/purchases/validation HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      dribble();
    });
    socket.on('data', (chunk) => {
      answer += chunk;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      if (status) finish(status);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(answer === '' ? 'closed without an answer' : 'answer unreadable'));
  });
}

async function slowClient(port: number, until: number): Promise<void> {
  while (Date.now() < until) await slowRequest(port);
}

// ---- the run ----

async function main() {
  const storePath = await prepareBenchStore(join(ROOT, 'bench/.cache'), data, log);
  const server = await startProcess(
    ['sh', '-c', startScript()],
    {
      ...process.env,
      DATABASE_URL: `sqlite:${storePath}`,
      SECRET_KEY: BENCH_SECRET,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
    },
    /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
  );
  const pid = server.child.pid as number;
  let serverExit: string | undefined;
  let errorLines = 0;
  server.child.once('exit', (code, signal) => {
    serverExit = `exit ${code ?? signal}`;
  });
  // Error-level log lines (pino level 50 and up), counted: a slow or aborted body must cause none.
  server.child.stdout?.on('data', (chunk: Buffer) => {
    errorLines += (String(chunk).match(/"level":(5|6)0/g) ?? []).length;
  });

  const minutes = DURATION_MS / 60_000;
  log(
    `soak: ${minutes} min on 127.0.0.1:${server.port} (server pid ${pid}, the npm start script), ` +
      `${CONNECTIONS} connections + ${SLOW_CLIENTS} slow clients, store of ${data.purchases.toLocaleString('en')} purchases`,
  );
  const rssBefore = memoryOf(pid).rssMb;
  const address = (n: number) => `127.0.0.${2 + (n % 250)}`;

  const warmUp = warmUpAsks();
  const warmUpStarted = Date.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, (_, n) => client(server.port, address(n), () => warmUp.pop(), warmUpStatuses)),
  );
  log(
    `warm-up: each working-set code, key and item asked once, in ${((Date.now() - warmUpStarted) / 1000).toFixed(0)} s; ` +
      `RSS ${memoryOf(pid).rssMb} MB`,
  );
  /** The whole mix, slow clients included, until `until`. */
  const mixed = (until: number, into: Map<string, number>) => {
    const next = () => (Date.now() < until ? nextAsk() : undefined);
    const runs: Promise<void>[] = [];
    for (let n = 0; n < CONNECTIONS; n++) runs.push(client(server.port, address(n), next, into));
    for (let n = 0; n < SLOW_CLIENTS; n++) runs.push(slowClient(server.port, until));
    return Promise.all(runs);
  };
  await mixed(Date.now() + MIXED_WARMUP_MS, warmUpStatuses);
  const rssAfterWarmup = memoryOf(pid).rssMb;
  log(
    `warm-up: then ${MIXED_WARMUP_MS / 1000} s of the whole mix (${byStatus(warmUpStatuses)}); RSS ${rssAfterWarmup} MB`,
  );
  for (const [outcome, n] of slowOutcomes) if (/^5\d\d$/.test(outcome)) count(warmUpStatuses, outcome, n);
  slowOutcomes.clear();
  latencies.length = 0;

  const started = Date.now();
  const run = mixed(started + DURATION_MS, statuses);
  const progress = setInterval(() => {
    const done = [...statuses.values()].reduce((sum, n) => sum + n, 0);
    log(`  ${Math.round((Date.now() - started) / 1000)} s: ${done} requests, RSS ${memoryOf(pid).rssMb} MB`);
  }, 30_000);
  await run;
  clearInterval(progress);
  const elapsedS = (Date.now() - started) / 1000;
  const rssEnd = serverExit ? 0 : memoryOf(pid).rssMb;
  server.child.kill('SIGTERM');
  await new Promise((resolve) => (serverExit ? resolve(undefined) : server.child.once('exit', resolve)));

  const total = [...statuses.values()].reduce((sum, n) => sum + n, 0);
  const sorted = latencies.sort((a, b) => a - b);
  const fivexx = [...statuses, ...warmUpStatuses]
    .filter(([status]) => status.startsWith('5'))
    .reduce((sum, [, n]) => sum + n, 0);
  const slow5xx = [...slowOutcomes].filter(([status]) => /^5\d\d$/.test(status)).reduce((sum, [, n]) => sum + n, 0);
  const growth = rssAfterWarmup > 0 ? (rssEnd - rssAfterWarmup) / rssAfterWarmup : 0;

  log('');
  log(`requests: ${total} in ${elapsedS.toFixed(0)} s (${(total / elapsedS).toFixed(0)}/s)`);
  log(`  by status: ${byStatus(statuses)}`);
  log(
    `  latency (slow clients apart): p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`,
  );
  log(`  network errors: ${networkErrors}`);
  log(`slow clients (a byte every ${DRIBBLE_MS} ms): ${byStatus(slowOutcomes)}`);
  log(
    `server RSS: ${rssBefore} MB before the load, ${rssAfterWarmup} MB after the warm-up, ${rssEnd} MB at the end ` +
      `(${(growth * 100).toFixed(1)} % since the warm-up; limit ${MAX_RSS_GROWTH * 100} %)`,
  );
  log(`server error-level log lines: ${errorLines}; server stopped on SIGTERM with ${serverExit}`);

  const failures: string[] = [];
  if (fivexx + slow5xx > 0) failures.push(`${fivexx + slow5xx} answers 5xx`);
  if (growth > MAX_RSS_GROWTH) failures.push(`RSS grew ${(growth * 100).toFixed(1)} %`);
  if (rssEnd === 0) failures.push(`the server died during the run (${serverExit})`);
  const resultsDir = join(ROOT, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `soak-${new Date().toISOString().replaceAll(':', '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        when: new Date().toISOString(),
        minutes,
        connections: CONNECTIONS,
        slowClients: SLOW_CLIENTS,
        data,
        total,
        statuses: Object.fromEntries(statuses),
        slowOutcomes: Object.fromEntries(slowOutcomes),
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        networkErrors,
        rss: { before: rssBefore, afterWarmup: rssAfterWarmup, end: rssEnd },
        errorLines,
        failures,
      },
      null,
      2,
    ),
  );
  log(`results: ${file}`);
  log(failures.length === 0 ? 'soak: OK' : `soak: FAILED (${failures.join('; ')})`);
  process.exitCode = failures.length === 0 ? 0 : 1;
}

await main();

import { createReadStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { defaultConfigFile } from '../src/config.js';
import { BENCH_SECRET, BIG_SELLER, FIFTY_SELLER, prepareBenchStore } from './bench-store.js';
import {
  accountApiKey,
  accountLine,
  dataset,
  FULL_DATASET,
  itemAccountIndex,
  itemIdAt,
  itemLine,
  purchaseCode,
  purchaseItemIndex,
  purchaseLine,
} from './generate-data.js';
import { memoryOf, ROOT, startProcess, startScript } from './server-process.js';

/**
 * `npm run bench`: the real server (the `npm start` build) against a bare node:http baseline that
 * writes precomputed copies of the same responses, measured alternately in one run on this
 * machine, per endpoint. Loopback only; every run is bounded in time and stops by itself.
 */

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    purchases: { type: 'string', default: String(FULL_DATASET.purchases) },
    // Only the cases whose name contains this text (for quick runs while working on one endpoint).
    only: { type: 'string', default: '' },
    warmup: { type: 'string', default: '5' },
  },
});
const DURATION = Number(args.duration);
const ROUNDS = Number(args.rounds);
const CONNECTIONS = Number(args.connections);
const WARMUP = Number(args.warmup);
const data =
  args.purchases === String(FULL_DATASET.purchases) ? FULL_DATASET : dataset({ purchases: Number(args.purchases) });

const log = (line: string) => process.stdout.write(`${line}\n`);
const random = (n: number) => Math.floor(Math.random() * n);

// ---- what to ask: valid and invalid inputs, drawn from the generator's pure functions ----

const accountActive = (index: number) => accountLine(data, index).status === 'active';

function sample<T>(count: number, draw: () => T | undefined): T[] {
  const found: T[] = [];
  for (let tries = 0; found.length < count && tries < count * 20; tries++) {
    const value = draw();
    if (value !== undefined) found.push(value);
  }
  return found;
}

const validPurchaseAt = (index: number) => {
  const owner = itemAccountIndex(data, purchaseItemIndex(data, index));
  if (purchaseLine(data, index).status !== 'active' || !accountActive(owner)) return undefined;
  return { key: accountApiKey(data, owner), code: purchaseCode(data, index) };
};
// The codes sellers' software validates: each again and again (every install, every licence
// check), so a working set of 10,000 purchases (and the items they are for) asked in random order.
const validPurchases = sample(10_000, () => validPurchaseAt(random(data.purchases)));
// And the worst case: any purchase of the whole store, so hardly one was asked before.
const anyValidPurchase = () => {
  for (;;) {
    const found = validPurchaseAt(random(data.purchases));
    if (found) return found;
  }
};
const activeAccounts = sample(5_000, () => {
  const index = random(data.accounts);
  return accountActive(index) ? accountApiKey(data, index) : undefined;
});
const approvedItems = sample(10_000, () => {
  const index = random(data.items);
  const owner = itemAccountIndex(data, index);
  if (itemLine(data, index).status !== 'approved' || !accountActive(owner)) return undefined;
  return { key: accountApiKey(data, owner), id: itemIdAt(index) };
});
const invalidCode = () =>
  `${random(0xffffffff).toString(16).padStart(8, '0')}-dead-4bad-8bad-${random(0xffffff).toString(16).padStart(12, '0')}`;

interface Case {
  readonly name: string;
  /** The least ratio to the baseline asked for; none for a case shown for information. */
  readonly target?: number;
  readonly expectedStatus: number;
  request(): { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string };
}

const pick = <T>(list: readonly T[]) => list[random(list.length)] as T;
const allCases: Case[] = [
  {
    name: 'validation, valid codes (JSON POST, a working set of 10,000)',
    target: 0.6,
    expectedStatus: 200,
    request: () => {
      const { key, code } = pick(validPurchases);
      return {
        method: 'POST',
        path: '/api/purchases/validation',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ purchase_code: code }),
      };
    },
  },
  {
    name: 'validation, valid codes of the whole store (first asked)',
    expectedStatus: 200,
    request: () => {
      const { key, code } = anyValidPurchase();
      return {
        method: 'POST',
        path: '/api/purchases/validation',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ purchase_code: code }),
      };
    },
  },
  {
    name: 'validation, invalid codes',
    target: 0.6,
    expectedStatus: 404,
    request: () => ({
      method: 'POST',
      path: '/api/purchases/validation',
      headers: { 'x-api-key': pick(activeAccounts), 'content-type': 'application/json' },
      body: JSON.stringify({ purchase_code: invalidCode() }),
    }),
  },
  {
    name: 'account details',
    target: 0.6,
    expectedStatus: 200,
    request: () => ({ method: 'GET', path: '/api/account/details', headers: { 'x-api-key': pick(activeAccounts) } }),
  },
  {
    name: 'one item',
    target: 0.6,
    expectedStatus: 200,
    request: () => {
      const { key, id } = pick(approvedItems);
      return { method: 'GET', path: `/api/items/item?item_id=${id}`, headers: { 'x-api-key': key } };
    },
  },
  {
    name: 'items of a 50-item seller',
    target: 0.4,
    expectedStatus: 200,
    request: () => ({ method: 'GET', path: '/api/items/all', headers: { 'x-api-key': FIFTY_SELLER.apiKey } }),
  },
];
const cases = allCases.filter((benchCase) => benchCase.name.includes(args.only ?? ''));

// ---- processes ----

/** CPU time (user + system) a process has used so far, in microseconds. */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are the 12th and 13th fields after the command name, in clock ticks (100/s).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

interface Measured {
  requestsPerSecond: number;
  /** The answering process's CPU time per request, in µs: what it costs, whatever limits the load. */
  cpuMicrosPerRequest: number;
  p50: number;
  p99: number;
  unexpected: number;
  errors: number;
}

async function measure(target: { port: number; pid: number }, benchCase: Case, seconds: number): Promise<Measured> {
  const { port, pid } = target;
  const first = benchCase.request();
  const cpuBefore = cpuMicros(pid);
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: first.method,
        path: first.path,
        setupRequest: (request) => {
          const next = benchCase.request();
          return { ...request, ...next, headers: { ...next.headers, 'x-bench-case': benchCase.name } };
        },
      },
    ],
  });
  const expected =
    (result.statusCodeStats as Record<string, { count: number }> | undefined)?.[String(benchCase.expectedStatus)]
      ?.count ?? 0;
  return {
    requestsPerSecond: result.requests.average,
    cpuMicrosPerRequest: (cpuMicros(pid) - cpuBefore) / Math.max(result.requests.total, 1),
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected: result.requests.total - expected,
    errors: result.errors + result.timeouts,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

async function capture(port: number, benchCase: Case) {
  const request = benchCase.request();
  const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'cache-control']) headers[name] = response.headers.get(name) ?? '';
  return { status: response.status, headers, body: await response.text() };
}

async function timeBigSeller(port: number) {
  const times: number[] = [];
  let bytes = 0;
  for (let n = 0; n < 20; n++) {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/api/items/all`, {
      headers: { 'x-api-key': BIG_SELLER.apiKey },
    });
    bytes = (await response.arrayBuffer()).byteLength;
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`big seller answered ${response.status}`);
  }
  return { medianMs: median(times), maxMs: Math.max(...times), bytes };
}

async function main() {
  const storePath = await prepareBenchStore(join(ROOT, 'bench/.cache'), data, log);
  const resultsDir = join(ROOT, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  // The shipped configuration, but without the failure budgets (the invalid-codes case is one
  // client failing on purpose as fast as it can), and a request budget per key no run reaches:
  // still counted, so its cost is measured.
  const configPath = join(resultsDir, '.bench-config.json');
  const off = { max: 0, windowSeconds: 60 };
  const limits = {
    clientFailures: off,
    keyClientFailures: off,
    keyRequests: { max: 1_000_000_000, windowSeconds: 60 },
  };
  writeFileSync(configPath, JSON.stringify({ ...defaultConfigFile, limits }));
  const server = await startProcess(
    ['sh', '-c', startScript()],
    {
      ...process.env,
      MARKETPLACE_CONFIG: configPath,
      DATABASE_URL: `sqlite:${storePath}`,
      SECRET_KEY: BENCH_SECRET,
      PORT: '0',
      LOG_LEVEL: 'info',
    },
    /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
  );
  const canned: Record<string, unknown> = {};
  for (const benchCase of cases) canned[benchCase.name] = await capture(server.port, benchCase);
  const cannedPath = join(resultsDir, '.baseline-responses.json');
  writeFileSync(cannedPath, JSON.stringify(canned));
  const baseline = await startProcess(
    [process.execPath, 'dist/bench/baseline-server.js', cannedPath],
    process.env,
    /baseline listening on (\d+)/,
  );
  const floor = await startProcess(
    [process.execPath, 'dist/bench/fastify-floor-server.js', cannedPath],
    process.env,
    /fastify floor listening on (\d+)/,
  );

  try {
    log(
      `server pid ${server.child.pid}, baseline pid ${baseline.child.pid}; ${CONNECTIONS} connections, ${DURATION} s a run, ${ROUNDS} rounds`,
    );
    // A server in service has its store file in the OS page cache, its caches filled and its code
    // compiled; measuring the first seconds after start would measure the disk and the JIT.
    log(`warming up: reading the store file, then ${WARMUP} s of each case before measuring it...`);
    await pipeline(createReadStream(storePath), new Writable({ write: (_chunk, _encoding, done) => done() }));

    const rows = [];
    for (const benchCase of cases) {
      // The caches hold what the previous case asked for: each case is measured once they hold its own.
      await measure({ port: server.port, pid: server.child.pid as number }, benchCase, WARMUP);
      const pairs: { server: Measured; baseline: Measured; floor: Measured }[] = [];
      const targets = {
        server: { port: server.port, pid: server.child.pid as number },
        baseline: { port: baseline.port, pid: baseline.child.pid as number },
        floor: { port: floor.port, pid: floor.child.pid as number },
      };
      const orders = [
        ['server', 'baseline', 'floor'],
        ['baseline', 'floor', 'server'],
        ['floor', 'server', 'baseline'],
      ] as const;
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate which goes first, so drift in the machine's speed falls on all three.
        const measured: Partial<Record<keyof typeof targets, Measured>> = {};
        for (const name of orders[round % orders.length] as readonly (keyof typeof targets)[]) {
          measured[name] = await measure(targets[name], benchCase, DURATION);
        }
        pairs.push(measured as { server: Measured; baseline: Measured; floor: Measured });
      }
      const row = {
        case: benchCase.name,
        serverRps: Math.round(median(pairs.map((p) => p.server.requestsPerSecond))),
        baselineRps: Math.round(median(pairs.map((p) => p.baseline.requestsPerSecond))),
        ratio: median(pairs.map((p) => p.server.requestsPerSecond / p.baseline.requestsPerSecond)),
        floorRatio: median(pairs.map((p) => p.floor.requestsPerSecond / p.baseline.requestsPerSecond)),
        serverCpuUs: median(pairs.map((p) => p.server.cpuMicrosPerRequest)),
        baselineCpuUs: median(pairs.map((p) => p.baseline.cpuMicrosPerRequest)),
        floorCpuUs: median(pairs.map((p) => p.floor.cpuMicrosPerRequest)),
        target: benchCase.target,
        serverP50: median(pairs.map((p) => p.server.p50)),
        serverP99: median(pairs.map((p) => p.server.p99)),
        baselineP99: median(pairs.map((p) => p.baseline.p99)),
        p99Ratio: median(pairs.map((p) => p.server.p99 / Math.max(p.baseline.p99, 1))),
        unexpectedStatus: pairs.reduce((sum, p) => sum + p.server.unexpected, 0),
        errors: pairs.reduce((sum, p) => sum + p.server.errors + p.baseline.errors, 0),
        pairs,
      };
      rows.push(row);
      log(
        `${row.case}: ${row.serverRps} req/s vs ${row.baselineRps} (ratio ${row.ratio.toFixed(2)}, target ${row.target ?? '-'}; ` +
          `Fastify floor ${row.floorRatio.toFixed(2)}); ` +
          `p99 ${row.serverP99} ms vs ${row.baselineP99} ms`,
      );
    }
    const bigSeller = await timeBigSeller(server.port);
    const wrong = rows.filter((row) => row.unexpectedStatus > 0 || row.errors > 0);
    for (const row of wrong)
      log(`WARNING: ${row.case}: ${row.unexpectedStatus} unexpected statuses, ${row.errors} errors`);
    const memory = memoryOf(server.child.pid as number);

    log('');
    log(
      '| endpoint | server req/s | baseline req/s | ratio | target | Fastify floor ratio | p50 ms | p99 ms | baseline p99 ms | p99 x | ' +
        'CPU µs/req server / Fastify floor / baseline | bad status |',
    );
    log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) {
      log(
        `| ${row.case} | ${row.serverRps} | ${row.baselineRps} | ${row.ratio.toFixed(2)} | ${row.target ?? '-'} | ` +
          `${row.floorRatio.toFixed(2)} | ${row.serverP50} | ` +
          `${row.serverP99} | ${row.baselineP99} | ${row.p99Ratio.toFixed(2)} | ` +
          `${row.serverCpuUs.toFixed(0)} / ${row.floorCpuUs.toFixed(0)} / ${row.baselineCpuUs.toFixed(0)} | ${row.unexpectedStatus} |`,
      );
    }
    log('');
    log(
      `items of a ${BIG_SELLER.items.toLocaleString('en')}-item seller: median ${bigSeller.medianMs.toFixed(1)} ms, max ${bigSeller.maxMs.toFixed(1)} ms, ${(bigSeller.bytes / 1024 / 1024).toFixed(1)} MiB`,
    );
    log(
      `server memory: RSS ${memory.rssMb} MB now (${memory.anonMb} MB heap and caches, ${memory.fileMb} MB mapped files), peak ${memory.peakMb} MB`,
    );
    const file = join(resultsDir, `http-${new Date().toISOString().replaceAll(':', '-')}.json`);
    writeFileSync(
      file,
      JSON.stringify(
        {
          when: new Date().toISOString(),
          data,
          connections: CONNECTIONS,
          duration: DURATION,
          rounds: ROUNDS,
          rows,
          bigSeller,
          memory,
        },
        null,
        2,
      ),
    );
    log(`results: ${file}`);
  } finally {
    server.child.kill('SIGTERM');
    baseline.child.kill('SIGTERM');
    floor.child.kill('SIGTERM');
  }
}

await main();

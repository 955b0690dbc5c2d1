import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, promisify } from 'node:util';
import { DAY_MS, dayOf } from '../src/activity/activity-days.js';
import { createNetworkHasher, networkKeyOf } from '../src/activity/client-network.js';
import { NetworkSketch } from '../src/activity/network-sketch.js';
import { defaultConfigFile } from '../src/config.js';
import { importNdjson } from '../src/importer/import-ndjson.js';
import { deriveKeyMaterial } from '../src/keys/server-secret.js';
import { openStore } from '../src/store/open-store.js';
import type { ActivityDelta } from '../src/store/store.js';
import { DEFAULT_POSTGRES_TIMEOUTS, type StoreLocation } from '../src/store/store-location.js';
import { BENCH_SECRET } from './bench-store.js';
import { formatRequestLine, post } from './request-lines.js';
import { createScratchDatabase, DEFAULT_BENCH_POSTGRES_URL, type ScratchDatabase } from './scratch-database.js';
import { startScript as npmStartScript, ROOT, startProcess } from './server-process.js';

/**
 * `npm run bench:top-flood`: what a seller's top-list calls cost another seller. A scratch store
 * (SQLite or PostgreSQL) is filled through the importer with one seller holding `--codes` codes
 * (and another with a thousand); each of the first seller's codes is validated once through the
 * real server (the `npm start` build), each from a network of its own, and with `--days` above 1
 * the days before today are written with the flush's own store write, every code from the same
 * network every day (the top list then reads every code's days). Then, in alternated rounds, wrk
 * drives the other seller's validations with and without `--clients` clients calling the first
 * seller's top list in a loop, `--interval-ms` apart, under the shipped report budget
 * (`limits.keyReports`; only the budgets the validations would reach are raised); each round
 * prints wrk's rate and p99 and the top-list calls' 200s and 429s, and the end the medians and
 * their ratios (flooded to quiet). Loopback only; needs wrk.
 *
 *   npm run bench:top-flood -- --store sqlite --codes 100000 --days 30
 */

const VALIDATION = '/api/purchases/validation';
const TOP = '/api/purchases/activity/top';
const FLOODER = { username: 'flood-seller', apiKey: 'flood-seller-key-0123456789abcdef', itemId: 920_000_001 };
const VICTIM = { username: 'quiet-seller', apiKey: 'quiet-seller-key-0123456789abcdef', itemId: 920_000_002 };
const VICTIM_CODES = 1_000;
const WRK_SCRIPT = join(ROOT, 'bench/wrk-requests.lua');

const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    codes: { type: 'string', default: '100000' },
    days: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '10' },
    clients: { type: 'string', default: '4' },
    'interval-ms': { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
const whole = (name: string, text: string | undefined, least = 1) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < least) fail(`--${name} must be a whole number of at least ${least}`);
  return value;
};
const CODES = whole('codes', args.codes);
const DAYS = whole('days', args.days);
const ROUNDS = whole('rounds', args.rounds);
const SECONDS = whole('seconds', args.seconds);
const CLIENTS = whole('clients', args.clients);
const INTERVAL_MS = whole('interval-ms', args['interval-ms'], 0);
const CONNECTIONS = whole('connections', args.connections);
const stores = (args.store ?? '').split(',').filter(Boolean);
for (const kind of stores) if (kind !== 'sqlite' && kind !== 'postgres') fail('--store: sqlite, postgres or both');
if (DAYS > 90) fail('--days: at most 90 (the retention the server keeps)');

const log = (line: string) => process.stdout.write(`${line}\n`);
const execFileAsync = promisify(execFile);
const code = (prefix: string, index: number) => `${prefix}-${index.toString().padStart(8, '0')}`;
/** The network each of the flooding seller's codes is validated from: a /24 of its own (up to 65,536, then again). */
const addressOf = (index: number) => `10.${(index >> 8) & 255}.${index & 255}.1`;

function* storeLines(): Generator<string> {
  for (const seller of [FLOODER, VICTIM]) {
    yield JSON.stringify({
      type: 'account',
      username: seller.username,
      email: `${seller.username}@example.com`,
      firstname: 'Bench',
      lastname: 'Seller',
      balance: '0.00',
      api_key: seller.apiKey,
      registered_at: '2023-01-01T00:00:00Z',
    });
    yield JSON.stringify({
      type: 'item',
      id: seller.itemId,
      account: seller.username,
      name: `Item of ${seller.username}`,
      description: 'An item for the top-list flood benchmark.',
      category: 'Scripts',
      sub_category: 'PHP',
      options: [],
      version: '1.0.0',
      demo_link: 'https://demo.example.com/',
      tags: ['bench'],
      preview_type: 'image',
      thumbnail: 'https://cdn.example.com/thumb.png',
      preview_image: 'https://cdn.example.com/preview.jpg',
      screenshots: [],
      price: { regular: '19.99', extended: '99.95' },
      supported: true,
      status: 'approved',
      published_at: '2023-02-01T00:00:00Z',
    });
  }
  const purchase = (purchaseCode: string, itemId: number) =>
    JSON.stringify({
      type: 'purchase',
      code: purchaseCode,
      item_id: itemId,
      license_type: 'regular',
      price: '19.99',
      downloaded: true,
      status: 'active',
      date: '2024-01-01T00:00:00Z',
    });
  for (let index = 0; index < CODES; index++) yield purchase(code('FLOOD', index), FLOODER.itemId);
  for (let index = 0; index < VICTIM_CODES; index++) yield purchase(code('QUIET', index), VICTIM.itemId);
}

async function* chunks(lines: Iterable<string>): AsyncGenerator<string> {
  let chunk = '';
  for (const line of lines) {
    chunk += `${line}\n`;
    if (chunk.length > 1 << 20) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/** The days before today, written as a flush writes them: each code from its network, one validation a day. */
function historyDeltas(
  first: number,
  last: number,
  daysAgo: number,
  hash: (address: string) => number,
): ActivityDelta[] {
  const at = Date.now() - daysAgo * DAY_MS;
  const deltas: ActivityDelta[] = [];
  for (let index = first; index < last; index++) {
    const sketch = new NetworkSketch();
    sketch.add(hash(addressOf(index)));
    deltas.push({
      account: FLOODER.username,
      codeKey: code('FLOOD', index).toLowerCase(),
      day: dayOf(at),
      validations: 1,
      firstSeen: at,
      lastSeen: at,
      networksStored: false,
      sketchWith: (stored) => {
        if (stored !== undefined) sketch.merge(NetworkSketch.parse(stored));
        return { sketch: sketch.serialize(), networks: sketch.estimate() };
      },
    });
  }
  return deltas;
}

async function fillStore(location: StoreLocation): Promise<void> {
  const keys = deriveKeyMaterial(BENCH_SECRET);
  const store = await openStore(location);
  try {
    const result = await importNdjson(store, keys, Readable.from(chunks(storeLines())));
    if (!result.ok) throw new Error(`the import failed: ${JSON.stringify(result.errors.slice(0, 3))}`);
    const hash = createNetworkHasher(networkKeyOf(keys));
    for (let daysAgo = 1; daysAgo < DAYS; daysAgo++) {
      for (let first = 0; first < CODES; first += 10_000) {
        await store.recordActivity(historyDeltas(first, Math.min(first + 10_000, CODES), daysAgo, hash));
      }
    }
  } finally {
    await store.close();
  }
}

/** Today's validation of each of the flooding seller's codes, through the server, `parallel` at a time. */
async function validateEveryCode(port: number, parallel = 32): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < CODES) {
      const index = next++;
      const response = await fetch(`http://127.0.0.1:${port}${VALIDATION}`, {
        method: 'POST',
        headers: {
          'x-api-key': FLOODER.apiKey,
          'x-forwarded-for': addressOf(index),
          'content-type': 'application/json',
        },
        body: JSON.stringify({ purchase_code: code('FLOOD', index) }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`validating ${code('FLOOD', index)}: ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** One call of the flooding seller's top list: its status and time. */
async function topList(port: number): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}${TOP}?days=${DAYS}&limit=100`, {
    headers: { 'x-api-key': FLOODER.apiKey },
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

/** `CLIENTS` loops calling the top list, INTERVAL_MS between an answer and the next call, until stopped. */
function startFlood(port: number) {
  let running = true;
  const statuses = new Map<number, number>();
  const loops = Array.from({ length: CLIENTS }, async () => {
    while (running) {
      const { status } = await topList(port);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      await sleep(INTERVAL_MS);
    }
  });
  return {
    /** The calls' statuses: 200 and 429 (the report budget's refusals) always, then any other. */
    async stop() {
      running = false;
      await Promise.all(loops);
      const others = [...statuses].filter(([status]) => status !== 200 && status !== 429).sort(([a], [b]) => a - b);
      return [200, 429]
        .map((status) => `${statuses.get(status) ?? 0} × ${status}`)
        .concat(others.map(([status, count]) => `${count} × ${status}`))
        .join(', ');
    },
  };
}

interface Measured {
  readonly rate: number;
  readonly p99Ms: number;
  readonly non2xx: number;
}

async function runWrk(port: number, requestsFile: string, seconds: number, once = false): Promise<Measured> {
  const { stdout } = await execFileAsync('wrk', [
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--latency',
    '-s',
    WRK_SCRIPT,
    `http://127.0.0.1:${port}`,
    '--',
    requestsFile,
    'valid',
    ...(once ? ['once'] : []),
  ]);
  const json = stdout.match(/^WRK_RESULT (.*)$/m)?.[1];
  if (once) return { rate: 0, p99Ms: 0, non2xx: 0 };
  if (!json) throw new Error(`wrk gave no result:\n${stdout}`);
  const result = JSON.parse(json) as { requests: number; durationUs: number; p99Us: number; non2xx: number };
  return {
    rate: result.requests / (result.durationUs / 1e6),
    p99Ms: result.p99Us / 1000,
    non2xx: result.non2xx,
  };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

async function benchStore(kind: 'sqlite' | 'postgres'): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'top-flood-'));
  let scratch: ScratchDatabase | undefined;
  let server: ChildProcess | undefined;
  try {
    let location: StoreLocation;
    let databaseUrl: string;
    if (kind === 'sqlite') {
      const path = join(dir, 'marketplace.db');
      location = { kind, path };
      databaseUrl = `sqlite:${path}`;
    } else {
      scratch = await createScratchDatabase(process.env.BENCH_POSTGRES_URL || DEFAULT_BENCH_POSTGRES_URL, 'topflood');
      location = { kind, url: scratch.url, poolSize: 10, ...DEFAULT_POSTGRES_TIMEOUTS };
      databaseUrl = scratch.url;
    }
    let started = performance.now();
    await fillStore(location);
    log(
      `${kind}: imported ${CODES} + ${VICTIM_CODES} codes, ${DAYS - 1} earlier days written, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const configPath = join(dir, 'config.json');
    // Budgets no run reaches (as `npm run bench`): counted as shipped, but a measured answer is
    // never the budget's 429 instead of a validation. The report budget stays as shipped: what the
    // flood costs is measured against the budget that bounds it.
    const unreached = { max: 1_000_000_000, windowSeconds: 60 };
    writeFileSync(
      configPath,
      JSON.stringify({
        ...defaultConfigFile,
        trustProxy: ['127.0.0.1'],
        limits: {
          ...defaultConfigFile.limits,
          clientFailures: unreached,
          keyClientFailures: unreached,
          keyRequests: unreached,
        },
      }),
    );
    const running = await startProcess(
      ['sh', '-c', npmStartScript()],
      {
        ...process.env,
        MARKETPLACE_CONFIG: configPath,
        DATABASE_URL: databaseUrl,
        SECRET_KEY: BENCH_SECRET,
        PORT: '0',
        LOG_LEVEL: 'info',
      },
      /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
    );
    server = running.child;
    const { port } = running;
    started = performance.now();
    await validateEveryCode(port);
    log(
      `${kind}: validated every code today through the API in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    // The first call writes the server's gathered counts; the second is a top list over the stored history.
    const first = await topList(port);
    const second = await topList(port);
    log(
      `${kind}: top list ${first.status} in ${first.ms.toFixed(1)} ms (with the flush), then ${second.status} in ${second.ms.toFixed(1)} ms`,
    );
    const requestsFile = join(dir, 'quiet-validations.tsv');
    writeFileSync(
      requestsFile,
      Array.from({ length: VICTIM_CODES }, (_, index) =>
        formatRequestLine(post(VALIDATION, VICTIM.apiKey, 'json', { purchase_code: code('QUIET', index) })),
      ).join('\n'),
    );
    // Every quiet code once, so that the rounds find them cached.
    await runWrk(port, requestsFile, 120, true);
    const results: Record<'quiet' | 'flood', Measured[]> = { quiet: [], flood: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? (['quiet', 'flood'] as const) : (['flood', 'quiet'] as const);
      for (const mode of order) {
        const flood = mode === 'flood' ? startFlood(port) : undefined;
        const measured = await runWrk(port, requestsFile, SECONDS);
        const calls = await flood?.stop();
        results[mode].push(measured);
        log(
          `${kind} round ${round} ${mode.padEnd(5)}: ${measured.rate.toFixed(0)} validations/s, p99 ${measured.p99Ms.toFixed(2)} ms` +
            `${measured.non2xx > 0 ? `, ${measured.non2xx} not 2xx` : ''}${calls === undefined ? '' : `; top-list calls: ${calls}`}`,
        );
      }
    }
    const rate = (mode: 'quiet' | 'flood') => median(results[mode].map((m) => m.rate));
    const p99 = (mode: 'quiet' | 'flood') => median(results[mode].map((m) => m.p99Ms));
    log(
      `${kind}: medians quiet ${rate('quiet').toFixed(0)}/s p99 ${p99('quiet').toFixed(2)} ms, ` +
        `flooded ${rate('flood').toFixed(0)}/s p99 ${p99('flood').toFixed(2)} ms; ` +
        `flooded to quiet: rate x ${(rate('flood') / rate('quiet')).toFixed(2)}, p99 x ${(p99('flood') / p99('quiet')).toFixed(2)}`,
    );
  } finally {
    server?.kill('SIGTERM');
    if (server && server.exitCode === null) await new Promise((resolve) => server?.once('exit', resolve));
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  await execFileAsync('wrk', ['--version']);
} catch (error) {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') fail('bench:top-flood needs wrk: apt-get install wrk');
}
log(
  `top-list flood: ${CODES} codes, ${DAYS} day(s) of history each; ${CLIENTS} clients ${INTERVAL_MS} ms apart; ` +
    `${ROUNDS} rounds of ${SECONDS} s, wrk -c${CONNECTIONS}`,
);
for (const kind of stores) await benchStore(kind as 'sqlite' | 'postgres');

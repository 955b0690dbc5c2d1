import { type ChildProcess, execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { defaultConfigFile } from '../src/config.js';
import { purchaseCodeKey } from '../src/domain/purchase-code.js';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { BENCH_SECRET, prepareBenchStore, preparePostgresBenchStore } from './bench-store.js';
import {
  accountApiKey,
  accountLine,
  dataset,
  FULL_DATASET,
  itemAccountIndex,
  purchaseCode,
  purchaseItemIndex,
  purchaseLine,
} from './generate-data.js';
import { type BenchRequest, formatRequestLine, post } from './request-lines.js';
import { DEFAULT_BENCH_POSTGRES_URL, type ScratchDatabase } from './scratch-database.js';
import { ROOT, startProcess, startScript } from './server-process.js';

/**
 * `npm run bench:saving`: what a live source costs the API. The real server (the `npm start`
 * build) answers valid validations of a working set of the store's purchases under wrk while
 * another process saves one purchase every 0.5 s (its status, refunded then active again, through
 * a store connection of its own, as the MarketBob follower or an admin refund on another instance
 * writes): requests a second and p99 quiet, then while saving, then in a quiet round right after,
 * with the purchase-cache misses of that last round (marketplace_cache_lookups_total on the
 * admin metrics). The purchases saved are outside the working set, as most of a marketplace's
 * sales are: what a save costs the others is what is measured. See bench/README.md.
 */

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    store: { type: 'string', default: 'sqlite,postgres' },
    connections: { type: 'string', default: '50' },
    purchases: { type: 'string', default: String(FULL_DATASET.purchases) },
    requests: { type: 'string', default: '20000' },
    'save-every-ms': { type: 'string', default: '500' },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
const positive = (name: string, text: string | undefined) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) fail(`--${name} must be a whole number of at least 1`);
  return value;
};
const SECONDS = positive('seconds', args.seconds);
const ROUNDS = positive('rounds', args.rounds);
const CONNECTIONS = positive('connections', args.connections);
const REQUESTS = positive('requests', args.requests);
const SAVE_EVERY_MS = positive('save-every-ms', args['save-every-ms']);
const stores = (args.store ?? '').split(',').filter(Boolean);
for (const kind of stores) if (kind !== 'sqlite' && kind !== 'postgres') fail('--store: sqlite, postgres or both');
const data =
  args.purchases === String(FULL_DATASET.purchases) ? FULL_DATASET : dataset({ purchases: Number(args.purchases) });

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const WRK_SCRIPT = join(ROOT, 'bench/wrk-requests.lua');
const CASE = 'saving';
/** Targets the case is judged by: the rate while saving over the quiet rate, the misses right after. */
const RATE_TARGET = 0.9;
const MISSES_TARGET = 1_000;

const log = (line: string) => process.stdout.write(`${line}\n`);
const random = (n: number) => Math.floor(Math.random() * n);
const execFileAsync = promisify(execFile);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const activePurchase = (index: number) =>
  purchaseLine(data, index).status === 'active' &&
  accountLine(data, itemAccountIndex(data, purchaseItemIndex(data, index))).status === 'active';

/** The working set: valid validations of purchases drawn from the whole store; and the indexes it holds. */
function workingSet(): { requests: BenchRequest[]; indexes: Set<number> } {
  const requests: BenchRequest[] = [];
  const indexes = new Set<number>();
  for (let tries = 0; requests.length < REQUESTS && tries < REQUESTS * 20; tries++) {
    const index = random(data.purchases);
    if (!activePurchase(index)) continue;
    indexes.add(index);
    const owner = itemAccountIndex(data, purchaseItemIndex(data, index));
    requests.push(
      post('/api/purchases/validation', accountApiKey(data, owner), 'json', {
        purchase_code: purchaseCode(data, index),
      }),
    );
  }
  return { requests, indexes };
}

/** Active purchases outside the working set, the ones the saver saves in turn. */
function savedCodes(outside: Set<number>, count: number): string[] {
  const codes: string[] = [];
  while (codes.length < count) {
    const index = random(data.purchases);
    if (outside.has(index) || !activePurchase(index)) continue;
    codes.push(purchaseCodeKey(purchaseCode(data, index)) as string);
  }
  return codes;
}

interface Measured {
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  readonly unexpected: number;
}

function runWrk(port: number, requestsFile: string, seconds: number, inOrder = false) {
  return execFileAsync('wrk', [
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--latency',
    '-s',
    WRK_SCRIPT,
    `http://127.0.0.1:${port}`,
    '--',
    requestsFile,
    CASE,
    ...(inOrder ? ['once'] : []),
  ]);
}

async function measure(port: number, requestsFile: string, seconds: number): Promise<Measured> {
  const { stdout } = await runWrk(port, requestsFile, seconds);
  const json = stdout.match(/^WRK_RESULT (.*)$/m)?.[1];
  if (!json) throw new Error(`wrk gave no result:\n${stdout}`);
  const result = JSON.parse(json) as { requests: number; durationUs: number; p99Us: number; non2xx: number };
  return {
    requestsPerSecond: result.requests / (result.durationUs / 1e6),
    p99Ms: result.p99Us / 1000,
    unexpected: result.non2xx,
  };
}

/** The server's purchase-cache misses so far. */
async function purchaseMisses(port: number): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/admin/v1/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  if (response.status !== 200) throw new Error(`metrics answered ${response.status}`);
  const series = 'marketplace_cache_lookups_total{cache="purchases",result="miss"} ';
  const line = (await response.text()).split('\n').find((candidate) => candidate.startsWith(series));
  return line === undefined ? 0 : Number(line.slice(series.length));
}

/**
 * Saves one purchase every SAVE_EVERY_MS through `store` until stopped: each in turn set refunded,
 * then active again at its next turn. Stopping puts every one back as it was.
 */
function startSaving(store: Store, codes: readonly string[]): { saves(): number; stop(): Promise<void> } {
  const refunded = new Set<string>();
  let saves = 0;
  let next = 0;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    const code = codes[next++ % codes.length] as string;
    const status = refunded.has(code) ? 'active' : 'refunded';
    if (status === 'refunded') refunded.add(code);
    else refunded.delete(code);
    running = running.then(() => store.setPurchaseStatus(code, status)).then(() => saves++);
  }, SAVE_EVERY_MS);
  return {
    saves: () => saves,
    async stop() {
      clearInterval(timer);
      await running;
      for (const code of refunded) await store.setPurchaseStatus(code, 'active');
    },
  };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

interface Round {
  readonly quiet: Measured;
  readonly saving: Measured;
  readonly after: Measured;
  readonly missesAfter: number;
  readonly saves: number;
}

async function benchStore(kind: 'sqlite' | 'postgres', requestsFile: string, indexes: Set<number>, resultsDir: string) {
  let database: ScratchDatabase | undefined;
  let databaseUrl: string;
  let writer: Store;
  if (kind === 'postgres') {
    database = await preparePostgresBenchStore(process.env.BENCH_POSTGRES_URL || DEFAULT_BENCH_POSTGRES_URL, data, log);
    databaseUrl = database.url;
    writer = await openPostgresStore(database.url, { poolSize: 1 });
  } else {
    const path = await prepareBenchStore(join(ROOT, 'bench/.cache'), data, log);
    databaseUrl = `sqlite:${path}`;
    writer = await openSqliteStore(path);
  }
  let server: { child: ChildProcess; port: number } | undefined;
  try {
    const configPath = join(resultsDir, '.bench-saving-config.json');
    const unreached = { max: 1_000_000_000, windowSeconds: 60 };
    writeFileSync(
      configPath,
      JSON.stringify({
        ...defaultConfigFile,
        limits: { clientFailures: unreached, keyClientFailures: unreached, keyRequests: unreached },
      }),
    );
    server = await startProcess(
      ['sh', '-c', startScript()],
      {
        ...process.env,
        MARKETPLACE_CONFIG: configPath,
        DATABASE_URL: databaseUrl,
        SECRET_KEY: BENCH_SECRET,
        ADMIN_TOKEN,
        PORT: '0',
        LOG_LEVEL: 'info',
      },
      /Server listening at http:\/\/127\.0\.0\.1:(\d+)/,
    );
    const { port } = server;
    // The working set in the caches, the code compiled.
    await runWrk(port, requestsFile, 300, true);
    await measure(port, requestsFile, Math.min(SECONDS, 5));
    const codes = savedCodes(indexes, 64);
    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const quiet = await measure(port, requestsFile, SECONDS);
      const saver = startSaving(writer, codes);
      const saving = await measure(port, requestsFile, SECONDS);
      const saves = saver.saves();
      await saver.stop();
      const missesBefore = await purchaseMisses(port);
      const after = await measure(port, requestsFile, SECONDS);
      const missesAfter = (await purchaseMisses(port)) - missesBefore;
      rounds.push({ quiet, saving, after, missesAfter, saves });
      log(
        `  ${kind} round ${round + 1}: quiet ${Math.round(quiet.requestsPerSecond)} req/s (p99 ${quiet.p99Ms.toFixed(1)} ms), ` +
          `saving ${Math.round(saving.requestsPerSecond)} req/s (p99 ${saving.p99Ms.toFixed(1)} ms, ${saves} saves), ` +
          `after ${Math.round(after.requestsPerSecond)} req/s with ${missesAfter} purchase-cache misses`,
      );
    }
    const of = (value: (round: Round) => number) => median(rounds.map(value));
    const ratio = of((round) => round.saving.requestsPerSecond / round.quiet.requestsPerSecond);
    const misses = of((round) => round.missesAfter);
    const unexpected = rounds.reduce(
      (sum, round) => sum + round.quiet.unexpected + round.saving.unexpected + round.after.unexpected,
      0,
    );
    log(
      `${kind}: quiet ${Math.round(of((r) => r.quiet.requestsPerSecond))} req/s, p99 ${of((r) => r.quiet.p99Ms).toFixed(1)} ms; ` +
        `saving ${Math.round(of((r) => r.saving.requestsPerSecond))} req/s, p99 ${of((r) => r.saving.p99Ms).toFixed(1)} ms ` +
        `(ratio ${ratio.toFixed(2)}: ${ratio >= RATE_TARGET ? 'pass' : 'FAIL'}); ` +
        `${misses} purchase-cache misses in the quiet round after (${misses < MISSES_TARGET ? 'pass' : 'FAIL'})` +
        (unexpected > 0 ? `; ${unexpected} answers not 200` : ''),
    );
    return { store: kind, rounds, ratio, misses, unexpected };
  } finally {
    if (server) await stop(server.child);
    await writer.close();
    await database?.drop();
  }
}

async function main() {
  const resultsDir = join(ROOT, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  const { requests, indexes } = workingSet();
  const requestsFile = join(resultsDir, '.wrk-saving.tsv');
  writeFileSync(requestsFile, `${requests.map(formatRequestLine).join('\n')}\n`);
  log(
    `bench:saving: ${requests.length.toLocaleString('en')} validations of ${data.purchases.toLocaleString('en')} purchases, ` +
      `one save every ${SAVE_EVERY_MS} ms; wrk, 1 thread, ${CONNECTIONS} connections, ${SECONDS} s a run, ${ROUNDS} rounds`,
  );
  const results = [];
  for (const kind of stores)
    results.push(await benchStore(kind as 'sqlite' | 'postgres', requestsFile, indexes, resultsDir));
  const file = join(resultsDir, `saving-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ data, seconds: SECONDS, rounds: ROUNDS, results }, null, 2));
  log(`results: ${file}`);
}

await main();

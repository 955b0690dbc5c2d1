import { readFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { type AnswerSlot, ContractFloorData } from './contract-floor-data.js';
import { contractFloorHandler } from './contract-floor-handler.js';
import { dataset, FULL_DATASET } from './generate-data.js';
import { type BenchRequest, parseRequestLine } from './request-lines.js';
import { ROOT } from './server-process.js';

/**
 * `node dist/bench/in-process.js --case valid [--builds DIR,DIR] [--passes N]`: the API's own work
 * per request, without sockets, and the contract floor's beside it, in one process. Each build's
 * app (its `dist/`, as `npm run build` makes it) is built over the bench store, and its server's
 * request handler is called with each of the bench's requests for the case (`npm run bench` writes
 * them, and the store, first) on a request that is a real stream and a reply that keeps nothing;
 * the contract floor's own handler (bench/contract-floor-handler.ts) runs beside
 * them. Passes over all the requests alternate between the handlers, so a slow moment of the
 * machine falls on all of them; each is reported as its median µs per request and its median
 * ratio to the first build's pass beside it.
 *
 * From outside, under wrk, rounds on this shared machine spread ±20 % and more, and a change of a
 * few per cent cannot be seen; here it can. What it cannot see: Node's HTTP code and the kernel
 * around each request, and the CPU caches they empty (under load the same work costs about twice
 * as much). A change is confirmed from outside (`npm run bench`) before it is called faster.
 */

const { values: args } = parseArgs({
  options: {
    case: { type: 'string', default: 'valid' },
    builds: { type: 'string', default: ROOT },
    passes: { type: 'string', default: '12' },
    concurrency: { type: 'string', default: '50' },
  },
});

const RESULTS = join(ROOT, 'bench/results');
const STORE = join(
  ROOT,
  `bench/.cache/http-${FULL_DATASET.accounts}-${FULL_DATASET.items}-${FULL_DATASET.purchases}-1.db`,
);

interface Contender {
  readonly name: string;
  readonly handle: RequestListener;
  readonly micros: number[];
}

/** A reply that keeps nothing and says when it ended; writeHead counts statuses. */
class NullReply {
  headersSent = false;
  constructor(
    private readonly statuses: Map<number, number>,
    private readonly ended: () => void,
  ) {}
  writeHead(status: number): this {
    this.headersSent = true;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    return this;
  }
  end(): this {
    this.ended();
    return this;
  }
  setHeader(): this {
    return this;
  }
  getHeader(): undefined {
    return undefined;
  }
  on(): this {
    return this;
  }
  once(): this {
    return this;
  }
}

const PEER = { remoteAddress: '127.0.0.1', destroy() {} };

/** The request as node:http would hand it over: a stream of its body, with its line and headers. */
function incoming(request: BenchRequest): IncomingMessage {
  const body = request.method === 'POST' ? [Buffer.from(request.body)] : [];
  const message = Readable.from(body, { objectMode: false }) as Readable & Record<string, unknown>;
  const headers: Record<string, string> = { host: '127.0.0.1:8080', 'x-api-key': request.apiKey, 'user-agent': 'wrk' };
  if (request.method === 'POST') {
    headers['content-type'] = request.contentType;
    headers['content-length'] = String(Buffer.byteLength(request.body));
  }
  Object.assign(message, { url: request.path, method: request.method, httpVersion: '1.1', headers, socket: PEER });
  return message as unknown as IncomingMessage;
}

/** One build's app over the bench store, as `main.ts` builds it; its server's request handler. */
async function buildContender(dir: string): Promise<Contender> {
  const dist = resolve(dir, 'dist/src');
  const { loadConfig } = (await import(`${dist}/config.js`)) as typeof import('../src/config.js');
  const { openStore } = (await import(`${dist}/store/open-store.js`)) as typeof import('../src/store/open-store.js');
  const { loadKeyMaterial } = (await import(
    `${dist}/keys/key-material.js`
  )) as typeof import('../src/keys/key-material.js');
  const { createLogger } = (await import(`${dist}/logging.js`)) as typeof import('../src/logging.js');
  const { createServiceMetrics } = (await import(
    `${dist}/metrics/service-metrics.js`
  )) as typeof import('../src/metrics/service-metrics.js');
  const { buildApp } = (await import(`${dist}/app.js`)) as typeof import('../src/app.js');
  const config = loadConfig();
  const store = await openStore(config.store, {});
  const keys = loadKeyMaterial(config);
  const logger = createLogger(config.logLevel);
  const metrics = createServiceMetrics();
  const metricsText = () => metrics.registry.metrics();
  const app = await buildApp({ config, store, keys, logger, metrics, metricsText, isShuttingDown: () => false });
  await app.ready();
  const [handle] = app.server.listeners('request') as RequestListener[];
  if (handle === undefined) throw new Error(`${dir}: the app's server has no request handler`);
  return { name: dir, handle, micros: [] };
}

/** The contract floor's own handler (bench/contract-floor-handler.ts) over the same data, answering fixed bytes. */
function floorContender(): Contender {
  const data = new ContractFloorData(dataset({ purchases: FULL_DATASET.purchases }));
  const body = Buffer.alloc(1_000, 0x20);
  const headers = ['x-request-id', '', 'content-type', 'application/json; charset=utf-8', 'cache-control', 'no-store'];
  let count = 0;
  const answer = (response: ServerResponse, slot: AnswerSlot | undefined) => {
    headers[1] = `floor-${++count}`;
    response.writeHead(slot === undefined ? 500 : 200, headers);
    response.end(body);
  };
  const handle = contractFloorHandler(data, answer, true);
  return { name: 'contract floor', handle, micros: [] };
}

/** One pass over every request, `concurrency` at a time: µs per request, and the statuses answered. */
async function pass(contender: Contender, requests: readonly BenchRequest[], concurrency: number) {
  const statuses = new Map<number, number>();
  const started = performance.now();
  for (let start = 0; start < requests.length; start += concurrency) {
    const batch = requests.slice(start, start + concurrency);
    await new Promise<void>((done) => {
      let left = batch.length;
      const ended = () => {
        left -= 1;
        if (left === 0) done();
      };
      for (const request of batch) {
        const reply = new NullReply(statuses, ended);
        contender.handle(incoming(request), reply as unknown as ServerResponse);
      }
    });
  }
  return { micros: ((performance.now() - started) * 1000) / requests.length, statuses };
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

process.env.MARKETPLACE_CONFIG ??= join(RESULTS, '.bench-config.json');
process.env.DATABASE_URL ??= `sqlite:${STORE}`;
process.env.SECRET_KEY ??= 'bench-secret-not-for-production-0123456789abcdef';
process.env.LOG_LEVEL ??= 'info';

const lines = readFileSync(join(RESULTS, `.wrk-${args.case}.tsv`), 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map(parseRequestLine);
// A case of one request (the list's) is asked again and again, as wrk does: a pass is at least 20,000.
const requests = Array.from(
  { length: Math.max(lines.length, 20_000) },
  (_, at) => lines[at % lines.length] as BenchRequest,
);
const contenders: Contender[] = [];
for (const dir of args.builds.split(',')) contenders.push(await buildContender(dir));
contenders.push(floorContender());
const passes = Number(args.passes);
const concurrency = Number(args.concurrency);
for (let round = 0; round < passes; round++) {
  // The order turns each round: no handler always runs right after the same other.
  const order = contenders.map((_, at) => contenders[(at + round) % contenders.length] as Contender);
  for (const contender of order) {
    const { micros, statuses } = await pass(contender, requests, concurrency);
    // The first two passes fill the caches and warm the code.
    if (round >= 2) contender.micros.push(micros);
    if (round === passes - 1) {
      process.stderr.write(`${contender.name}: statuses ${JSON.stringify(Object.fromEntries(statuses))}\n`);
    }
  }
}
const [first] = contenders as [Contender];
for (const contender of contenders) {
  const ratios = contender.micros.map((micros, at) => micros / (first.micros[at] as number));
  process.stdout.write(
    `${args.case} ${contender.name}: ${median(contender.micros).toFixed(2)} µs/request (median of ${contender.micros.length} passes), ${median(ratios).toFixed(3)} of ${first.name}\n`,
  );
}
process.exit(0);

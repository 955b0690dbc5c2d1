/**
 * What an import through the admin API costs the API's latency: the p99 of purchase-code
 * validation (wrk, one thread, 50 connections, JSON POST bodies varied per request by a Lua
 * script) on a quiet server, then while a 1,000,000-line import streams into `POST /admin/v1/import`,
 * then quiet again. One server process over a fresh SQLite store, started as `npm start` does.
 *
 *   npm run build && node dist/bench/admin-import-latency.js [--seconds 20]
 *
 * The validation traffic asks for 2,000 codes of a small data set imported first; the big import
 * writes other accounts, items and purchases (renamed apart), so the answers do not change
 * under the load: only the import's competition for the machine does.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { defaultConfigFile } from '../src/config.js';
import {
  accountApiKey,
  accountLine,
  dataset,
  datasetLines,
  itemAccountIndex,
  itemLine,
  purchaseCode,
  purchaseItemIndex,
  purchaseLine,
} from './generate-data.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'bench-admin-token-0123456789';
const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '20' } } });
const seconds = Number(args.seconds);

const log = (message: string) => process.stderr.write(`${message}\n`);
const dir = mkdtempSync(join(tmpdir(), 'marketplace-admin-bench-'));

// ---- data ----
const small = dataset({ purchases: 10_000, seed: 7 });
const big = dataset({ purchases: 901_000, accounts: 9_000, items: 90_000, seed: 9 });
const ITEM_OFFSET = 10_000_000;

function writeSmall(path: string) {
  writeFileSync(path, `${[...datasetLines(small)].join('\n')}\n`);
}

/** The big data set, renamed apart from the small one: `b`-usernames, item ids + 10,000,000, `b`-codes. */
async function writeBig(path: string): Promise<number> {
  const out = createWriteStream(path);
  let lines = 0;
  let buffer = '';
  const push = async (line: Record<string, unknown>) => {
    buffer += `${JSON.stringify(line)}\n`;
    lines++;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  };
  for (let n = 0; n < big.accounts; n++) {
    const line = accountLine(big, n);
    await push({ ...line, username: `b${line.username as string}` });
  }
  for (let n = 0; n < big.items; n++) {
    const line = itemLine(big, n);
    await push({ ...line, id: (line.id as number) + ITEM_OFFSET, account: `b${line.account as string}` });
  }
  for (let n = 0; n < big.purchases; n++) {
    const line = purchaseLine(big, n);
    await push({ ...line, item_id: (line.item_id as number) + ITEM_OFFSET, code: `b${line.code as string}` });
  }
  out.end(buffer);
  await once(out, 'finish');
  return lines;
}

/** wrk's Lua script: a random (key, code) pair of active purchases of the small set per request. */
function writeLua(path: string) {
  const pairs: string[] = [];
  for (let n = 0; n < small.purchases && pairs.length < 2000; n++) {
    if ((purchaseLine(small, n) as { status: string }).status !== 'active') continue;
    const owner = itemAccountIndex(small, purchaseItemIndex(small, n));
    // Only codes that validate: a suspended seller's key answers 401.
    if ((accountLine(small, owner) as { status?: string }).status === 'suspended') continue;
    pairs.push(`{"api_key":"${accountApiKey(small, owner)}","purchase_code":"${purchaseCode(small, n)}"}`);
  }
  writeFileSync(
    path,
    `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local bodies = { ${pairs.map((body) => `'${body}'`).join(',\n')} }
request = function()
  return wrk.format(nil, "/api/purchases/validation", nil, bodies[math.random(#bodies)])
end
`,
  );
}

// ---- processes ----
function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  const startScript = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const child = spawn('sh', ['-c', startScript], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
      if (match) {
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve({ child, port: Number(match[1]) });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
}

function postFile(port: number, path: string): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/admin/v1/import',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/x-ndjson',
          'content-length': statSync(path).size,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body, ms: performance.now() - started }));
      },
    );
    outgoing.on('error', reject);
    createReadStream(path).pipe(outgoing);
  });
}

const run = promisify(execFile);

/** wrk for `duration` seconds; its p50 and p99 latency (ms) and request rate. */
async function wrk(port: number, lua: string, duration: number) {
  const { stdout } = await run(
    'wrk',
    ['-t1', '-c50', `-d${duration}s`, '--latency', '-s', lua, `http://127.0.0.1:${port}`],
    { maxBuffer: 1 << 20 },
  );
  const toMs = (text: string | undefined) => {
    const match = text?.match(/([\d.]+)(us|ms|s)/);
    if (!match) return Number.NaN;
    const value = Number(match[1]);
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
  };
  const p50 = toMs(stdout.match(/^\s+50%\s+(\S+)/m)?.[1]);
  const p99 = toMs(stdout.match(/^\s+99%\s+(\S+)/m)?.[1]);
  const rate = Number(stdout.match(/Requests\/sec:\s+([\d.]+)/)?.[1]);
  const non2xx = Number(stdout.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0);
  return { p50, p99, rate, non2xx };
}

async function main() {
  const smallPath = join(dir, 'small.ndjson');
  const bigPath = join(dir, 'big.ndjson');
  const lua = join(dir, 'validation.lua');
  writeSmall(smallPath);
  writeLua(lua);
  const bigLines = await writeBig(bigPath);
  log(`big import: ${bigLines} lines, ${(statSync(bigPath).size / 1e6).toFixed(0)} MB`);
  const configPath = join(dir, 'config.json');
  // Failure budgets off, and a request budget per key no run reaches (as `npm run bench` does).
  const off = { max: 0, windowSeconds: 60 };
  const limits = {
    clientFailures: off,
    keyClientFailures: off,
    keyRequests: { max: 1_000_000_000, windowSeconds: 60 },
  };
  writeFileSync(configPath, JSON.stringify({ ...defaultConfigFile, limits }));
  const server = await startServer({
    ...process.env,
    MARKETPLACE_CONFIG: configPath,
    DATABASE_URL: `sqlite:${join(dir, 'store.db')}`,
    ADMIN_TOKEN: TOKEN,
    PORT: '0',
    LOG_LEVEL: 'info',
    WORKERS: '1',
  });
  try {
    const seeded = await postFile(server.port, smallPath);
    if (seeded.status !== 200) throw new Error(`small import: ${seeded.status} ${seeded.body}`);
    await wrk(server.port, lua, 5);
    const quietBefore = await wrk(server.port, lua, seconds);
    log(`quiet: ${JSON.stringify(quietBefore)}`);
    const importing = postFile(server.port, bigPath);
    const loaded = await wrk(server.port, lua, seconds);
    const imported = await importing;
    log(`during import: ${JSON.stringify(loaded)}; import ${imported.status} in ${(imported.ms / 1000).toFixed(1)} s`);
    const quietAfter = await wrk(server.port, lua, seconds);
    log(`quiet again: ${JSON.stringify(quietAfter)}`);
    const result = {
      when: new Date().toISOString(),
      wrk: `-t1 -c50 -d${seconds}s, validation of random active codes (JSON POST)`,
      quietBefore,
      duringImport: loaded,
      quietAfter,
      import: {
        lines: bigLines,
        status: imported.status,
        seconds: imported.ms / 1000,
        answer: JSON.parse(imported.body),
      },
      importOutlastedLoad: imported.ms / 1000 > seconds,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

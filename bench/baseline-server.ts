import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/**
 * The benchmark's baseline: a bare node:http server that reads each request, body included, and
 * writes a precomputed copy of the response the real server gave for that case (named by the
 * `x-bench-case` header, which the real server ignores). What the real server spends beyond this
 * is the cost of actually answering.
 */
interface Canned {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const cannedByCase = new Map<string, { status: number; headers: Record<string, string>; body: Buffer }>();
const file = process.argv[2];
if (!file) throw new Error('usage: baseline-server <canned-responses.json>');
for (const [name, canned] of Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Canned>)) {
  const body = Buffer.from(canned.body, 'utf8');
  cannedByCase.set(name, {
    status: canned.status,
    headers: { ...canned.headers, 'content-length': String(body.length) },
    body,
  });
}

const server = createServer((request, response) => {
  request.on('data', () => {});
  request.on('end', () => {
    const canned = cannedByCase.get(String(request.headers['x-bench-case']));
    if (!canned) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(canned.status, canned.headers);
    response.end(canned.body);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`baseline listening on ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

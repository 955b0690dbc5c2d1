import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { holdTickObject } from '../src/server/tick-objects.js';
import { collectAnswers } from './contract-floor-answers.js';
import { type AnswerSlot, ContractFloorData } from './contract-floor-data.js';
import { contractFloorHandler } from './contract-floor-handler.js';
import { dataset } from './generate-data.js';

/**
 * The contract floor of `npm run bench`: a plain node:http server that does, for each bench case,
 * only what the contract cannot do without (issue 21, item 5): read the body and parse it (JSON,
 * urlencoded with fast-querystring, multipart with @fastify/busboy), the key's SHA-256 and a `Map`
 * lookup of its account, a `Map` lookup of the purchase or item, the rules that pick the answer,
 * and the write of the real server's answer bytes with the real server's headers (a request id of
 * its own, from a counter). No budgets, metrics, logs or caches to fill: what the real server
 * spends beyond this is what its features cost.
 *
 *   node dist/bench/contract-floor-server.js --server http://127.0.0.1:PORT --purchases N FILE...
 *
 * Before it listens it builds its maps from the generated data the bench store was imported from,
 * then asks the real server (`--server`) each distinct answer the request FILEs (the bench's, as
 * wrk reads them) lead to, once (bench/contract-floor-answers.ts). Prints `contract floor
 * listening on PORT` when ready.
 */

const { values: args, positionals: requestFiles } = parseArgs({
  options: { server: { type: 'string' }, purchases: { type: 'string' } },
  allowPositionals: true,
});
if (!args.server || !args.purchases) {
  throw new Error('usage: contract-floor-server --server URL --purchases N REQUEST-FILE...');
}

// As the real server does at its start (src/server/tick-objects.ts): without it, whether this
// process's nextTick turned slow depended on when its full collections fell, and the floor's rate
// with it. Held, the floor is at its best in every run, and a ratio to it is never flattered.
holdTickObject();

const log = (line: string) => process.stderr.write(`contract floor: ${line}\n`);
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

let started = performance.now();
const data = new ContractFloorData(dataset({ purchases: Number(args.purchases) }));
const { accounts, items, purchases } = data.sizes;
log(`${accounts} accounts, ${items} items, ${purchases} purchases in maps in ${seconds(started)} s`);
started = performance.now();
const collected = await collectAnswers(data, new URL(args.server), requestFiles);
log(
  `${collected.answers} distinct answers of the real server collected for ${collected.requests} requests in ${seconds(started)} s`,
);

// A request id as unique as the real server's UUID and about as long, without a random draw per request.
const REQUEST_ID_PREFIX = `${randomUUID().slice(0, 24)}`;
let requestCount = 0;
const NOT_ANSWERED = Buffer.from('the contract floor has no answer for this request (the bench never asks it)\n');

function answer(response: ServerResponse, slot: AnswerSlot | undefined) {
  const answer = slot?.answer;
  if (answer === undefined) {
    response.writeHead(500, ['content-type', 'text/plain', 'content-length', NOT_ANSWERED.length]);
    response.end(NOT_ANSWERED);
    return;
  }
  const { headers } = answer;
  // writeHead copies the list into the head at once: the answer's own list can take this request's id.
  if (answer.requestIdAt >= 0) headers[answer.requestIdAt] = REQUEST_ID_PREFIX + ++requestCount;
  response.writeHead(answer.status, headers);
  response.end(answer.body);
}

const server = createServer(contractFloorHandler(data, answer));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`contract floor listening on ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

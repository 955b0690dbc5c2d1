import { generateKeyPairSync } from 'node:crypto';
import { AnswerSigner } from '../src/signing/answer-signer.js';

/**
 * What the answer signer holds per remembered answer: 30,000 validation answers signed, then
 * signed again past their minute and renewed beside their requests, three times over, on a clock
 * this script moves. The heap is read after full collections, so the figure is what stays.
 *
 *   node --expose-gc dist/bench/signer-memory.js
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  process.stderr.write('run with node --expose-gc\n');
  process.exit(2);
}
const ANSWERS = 30_000;
const PATH_BYTES = ['/api/purchases/validation', '/pt/api/purchases/validation'].map((path) => Buffer.from(path));
const { privateKey } = generateKeyPairSync('ed25519');
let clock = 1_795_900_000_000;
const signer = new AnswerSigner({ current: { kid: 'bench', generation: 1, privateKey } }, () => clock);
const bodies = Array.from({ length: ANSWERS }, (_, index) =>
  Buffer.from(JSON.stringify({ status: 'success', data: { purchase_code: `code-${index}`.padEnd(36, '0') } })),
);
/** The path as a server has it: a string of its own for each request, read from the request's bytes. */
const ask = (index: number) =>
  signer.sign(200, 'POST', PATH_BYTES[index % 2]?.toString('latin1') as string, '', undefined, bodies[index] as Buffer);
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const before = heapUsed();
for (let index = 0; index < ANSWERS; index++) ask(index);
const signed = heapUsed();
for (let round = 0; round < 3; round++) {
  // Past the minute: each signed again in front of its request.
  clock += 61_000;
  for (let index = 0; index < ANSWERS; index++) ask(index);
  // Due: each renewed beside its request, on the thread pool.
  clock += 59_000;
  for (let index = 0; index < ANSWERS; index++) ask(index);
  signer.renewDue();
  await signer.renewed();
}
const renewed = heapUsed();
signer.close();
process.stdout.write(
  `${ANSWERS} answers: ${((signed - before) / ANSWERS).toFixed(0)} bytes of heap each once signed, ` +
    `${((renewed - before) / ANSWERS).toFixed(0)} after three renewals\n`,
);

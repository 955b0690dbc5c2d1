/**
 * Run by test/server/tick-objects.test.ts in a process of its own, under `--expose-gc
 * --allow-natives-syntax --no-concurrent-recompilation`: with `hold`, holds a tick object first (src/server/tick-objects.ts); then
 * makes tick objects, runs full collections while none is alive, makes more, and prints V8's own
 * view of `process.nextTick` (its feedback slots among it) on standard output.
 */
import { holdTickObject } from '../../src/server/tick-objects.js';

/** V8's collections run from here; `gc` is there under --expose-gc. */
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run under --expose-gc');
// Natives syntax is V8's, not TypeScript's: a function made from text keeps it away from the compiler.
const debugPrint = new Function('value', '%DebugPrint(value)') as (value: unknown) => void;

if (process.argv.includes('hold')) holdTickObject();

const ticks = (count: number) =>
  new Promise<void>((resolve) => {
    let left = count;
    for (let n = 0; n < count; n++)
      process.nextTick(() => {
        left -= 1;
        if (left === 0) resolve();
      });
  });
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

for (let round = 0; round < 50; round++) await ticks(1_000);
// V8 keeps maps that were in use through a couple of collections before it lets them go.
for (let round = 0; round < 4; round++) {
  await turn();
  collect();
}
await ticks(10);
debugPrint(process.nextTick);

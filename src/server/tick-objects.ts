import { executionAsyncResource } from 'node:async_hooks';

/**
 * One of `process.nextTick`'s tick objects, held for the life of the process.
 *
 * Node 20 builds each tick object as a literal whose first two keys are computed
 * (`{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`). V8 keeps such a
 * literal's feedback monomorphic or megamorphic, nothing in between, and holds the shapes (maps) it
 * saw weakly. When a few full collections pass while no tick object is alive, as in a quiet moment
 * of a server with a large heap, those maps die; the next tick object is built on new ones, and
 * the literal's feedback turns megamorphic for the rest of the process. From then on V8's runtime
 * builds every tick object property by property, several times slower, and an API request makes
 * about ten of them, so a process so hit answered measurably fewer requests under the same load
 * (bench/README.md has the figures). Whether it struck depended on when the process's
 * collections fell. A tick object that never dies keeps the maps alive, and the feedback stays
 * monomorphic (test/server/tick-objects.test.ts checks it in V8's own feedback).
 */
let held: object | undefined;

/** Holds a tick object from now on. Call it first thing: once the feedback has turned, it stays so. */
export function holdTickObject(): void {
  if (held !== undefined) return;
  process.nextTick(() => {
    // Inside a tick's callback, the resource of the current execution is that tick object.
    held = executionAsyncResource();
  });
}

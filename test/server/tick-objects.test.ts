import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, TSX_LOADER } from '../helpers/processes.js';

const scratch = mkdtempSync(join(tmpdir(), 'tick-objects-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The states of `process.nextTick`'s feedback for its tick object's literal, in a process that
 * made tick objects, then ran full collections while none was alive (test/helpers/tick-feedback.ts).
 * V8 prints through the C library's buffered output, which loses its tail on a pipe that Node made
 * non-blocking: it goes to a file.
 */
async function literalFeedback(hold: boolean): Promise<string[]> {
  const output = join(scratch, `feedback-${hold ? 'held' : 'not-held'}.txt`);
  const fd = openSync(output, 'w');
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--allow-natives-syntax',
      // A compilation in flight holds the maps it read until it ends: none then, for a verdict that is always the same.
      '--no-concurrent-recompilation',
      '--import',
      TSX_LOADER,
      join(ROOT, 'test/helpers/tick-feedback.ts'),
      ...(hold ? ['hold'] : []),
    ],
    { cwd: ROOT, stdio: ['ignore', fd, 'inherit'] },
  );
  // The child has its own copy of the descriptor.
  closeSync(fd);
  const code = await new Promise((resolve) => child.once('close', resolve));
  expect(code).toBe(0);
  return [...readFileSync(output, 'utf8').matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map(
    (match) => match[1] as string,
  );
}

describe('the tick object held (src/server/tick-objects.ts)', () => {
  it("keeps the feedback of nextTick's literal monomorphic through full collections", async () => {
    expect(await literalFeedback(true)).toEqual(['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC']);
  });

  it('is needed: without it, the literal turns megamorphic after those collections', async () => {
    // Should a later Node keep it monomorphic by itself, this fails, and the hold may go.
    expect(await literalFeedback(false)).toEqual(['MONOMORPHIC', 'MEGAMORPHIC', 'MEGAMORPHIC', 'MEGAMORPHIC']);
  });
});

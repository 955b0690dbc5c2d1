import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startWorker } from '../../src/threads/start-worker.js';

/** A thread's nice value: the 19th field of its stat line (its name, in parentheses, may hold spaces). */
const niceOf = (stat: string) => Number(stat.split(') ')[1]?.split(' ')[16]);

describe('lowerThreadPriority', () => {
  it('lowers the calling thread to the lowest priority, and no other thread of the process', async () => {
    const worker = startWorker(new URL('./fixtures/low-priority-thread.js', import.meta.url));
    try {
      const [answer] = (await once(worker, 'message')) as [{ lowered: boolean; stat: string }];
      expect(answer.lowered).toBe(true);
      expect(niceOf(answer.stat)).toBe(19);
    } finally {
      await worker.terminate();
    }
    expect(niceOf(readFileSync('/proc/thread-self/stat', 'utf8'))).toBe(0);
  });
});

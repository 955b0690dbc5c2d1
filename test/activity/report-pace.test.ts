import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { reportPace } from '../../src/activity/report-pace.js';

/** A thread's nice value: the 19th field of its stat line (the name, in parentheses, may hold spaces). */
const niceOf = (statPath: string) => Number(readFileSync(statPath, 'utf8').split(') ')[1]?.split(' ')[16]);

describe('reportPace', () => {
  it('waits as long as the work since the last wait, scaled by the share of time the report may work', async () => {
    let clock = 0;
    const slept: number[] = [];
    const fakeClock = { now: () => clock, sleep: async (ms: number) => void slept.push(ms) };
    const half = reportPace(0.5, fakeClock);
    clock += 30;
    await half();
    clock += 12;
    await half();
    const quarter = reportPace(0.25, fakeClock);
    clock += 10;
    await quarter();
    expect(slept).toEqual([30, 12, 30]);
  });
});

describe('lowerThreadPriority', () => {
  it('lowers the calling thread to the lowest priority, and no other thread of the process', async () => {
    const url = new URL('../../src/activity/thread-priority.ts', import.meta.url);
    const code = `
      const { parentPort } = require('node:worker_threads');
      const { readFileSync } = require('node:fs');
      import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })
        .then(({ lowerThreadPriority }) => {
          const lowered = lowerThreadPriority();
          parentPort.postMessage({ lowered, stat: readFileSync('/proc/thread-self/stat', 'utf8') });
        });`;
    const worker = new Worker(code, { eval: true });
    const answer = await new Promise<{ lowered: boolean; stat: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(answer.lowered).toBe(true);
    expect(Number(answer.stat.split(') ')[1]?.split(' ')[16])).toBe(19);
    expect(niceOf('/proc/thread-self/stat')).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { forEachInTurns, ITEMS_PER_TURN } from '../../src/threads/event-loop-turns.js';

describe('forEachInTurns', () => {
  it('visits every item in order, and lets the event loop take a turn after every `perTurn` of them', async () => {
    const seen: string[] = [];
    setImmediate(() => seen.push('a turn'));
    await forEachInTurns(['a', 'b', 'c', 'd', 'e'], (item, at) => seen.push(`${item}${at}`), 2);
    expect(seen).toEqual(['a0', 'b1', 'a turn', 'c2', 'd3', 'e4']);
  });

  it('runs a list no longer than one turn’s share without giving the event loop a turn', async () => {
    const seen: string[] = [];
    setImmediate(() => seen.push('a turn'));
    await forEachInTurns(
      Array.from({ length: ITEMS_PER_TURN }, (_, at) => at),
      (item) => {
        if (item % 250 === 0) seen.push(String(item));
      },
    );
    expect(seen).toEqual(['0', '250', '500', '750']);
  });
});

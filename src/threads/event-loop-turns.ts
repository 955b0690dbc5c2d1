import { setImmediate as nextTurn } from 'node:timers/promises';

/** Items handled in one turn of the event loop, at most (see forEachInTurns): well under a millisecond's work. */
export const ITEMS_PER_TURN = 1_000;

/**
 * Calls `each` for every item in order, letting the event loop take a turn after every
 * `perTurn` of them: a loop over a whole flush (10,000 codes) on the thread that answers requests
 * would otherwise hold every request that arrives meanwhile for milliseconds. What `each` reads
 * may change between two turns: the caller says why that is harmless.
 */
export async function forEachInTurns<T>(
  items: readonly T[],
  each: (item: T, at: number) => void,
  perTurn = ITEMS_PER_TURN,
): Promise<void> {
  for (let at = 0; at < items.length; at++) {
    if (at > 0 && at % perTurn === 0) await nextTurn();
    each(items[at] as T, at);
  }
}

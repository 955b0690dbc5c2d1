/**
 * How many turns the event loop gave other work (a chain of setImmediate callbacks) while `work`
 * ran, with what it resolved to: 0 or 1 when it held the loop all along.
 */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; value: T }> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns += 1;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    const value = await work();
    return { turns, value };
  } finally {
    running = false;
  }
}

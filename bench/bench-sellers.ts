/**
 * Sellers the benchmark store adds to the generated data: one with 50 approved items, one with
 * 10,000. A module of their own so that a process which only needs their keys and items (the
 * contract floor) does not load the store's code.
 */
export const FIFTY_SELLER = {
  username: 'bench-fifty',
  apiKey: 'bench-fifty-key-0123456789abcdef',
  items: 50,
  firstId: 900_000_001,
};
export const BIG_SELLER = {
  username: 'bench-big',
  apiKey: 'bench-big-key-0123456789abcdef00',
  items: 10_000,
  firstId: 910_000_001,
};

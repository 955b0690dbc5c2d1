/** How often the wall clock's offset from the monotonic clock is read again. */
const RESYNC_MS = 1_000;

/**
 * The wall clock (ms since the epoch, as Date.now()) from a performance.now() reading the caller
 * has already taken: a request reads the clock once for both, since reading a virtual machine's
 * clock is not free. The offset between the two clocks is read again once a second, so a
 * step of the wall clock (NTP) is followed within a second, as Date.now() would have.
 */
export class WallClock {
  #offset = 0;
  #readAt = Number.NEGATIVE_INFINITY;

  /** Date.now() at the moment `monotonic` (performance.now()) was read, to the millisecond. */
  at(monotonic: number): number {
    if (monotonic - this.#readAt >= RESYNC_MS) {
      this.#offset = Date.now() - monotonic;
      this.#readAt = monotonic;
    }
    return Math.floor(monotonic + this.#offset);
  }
}

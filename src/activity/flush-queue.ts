/** What a FlushQueue links: the entry's seller, and its place in the queue. */
export interface Queueable<T> {
  readonly account: string;
  /** Whether it waits in a queue, or was taken and not yet handed to its write. */
  queued: boolean;
  /** The entry after it in its queue, or in the entries taken with it. */
  nextQueued: T | undefined;
}

/** Sellers whose count is kept between flushes, at most (see FlushQueue's `sizeOf`): a few megabytes when full. */
export const SELLERS_COUNTED = 50_000;

/**
 * The entries that wait for a flush, linked through the entries themselves: queueing one (on the
 * first validation of a code since the last flush) allocates nothing, and a flush takes them as a
 * chain rather than an array. Either array (the queue grown code by code, or the flush's copy)
 * lived as long as a flush is written, outlived the young generation and was garbage for the old.
 */
export class FlushQueue<T extends Queueable<T>> {
  private first: T | undefined;
  private last: T | undefined;
  private size = 0;
  /**
   * Per seller, its entries in the queue (0 for a seller none of whose entries waits). Set to 0 at a
   * whole take rather than cleared: a map of thousands of sellers grown again after every flush
   * made a table of each size on the way, the last one living until the next flush, out of the
   * young generation and into the old one's garbage.
   */
  private readonly sizeOf = new Map<string, number>();

  /** Queues `entry` unless it is queued (or taken and not yet handed to its write). */
  push(entry: T): void {
    if (entry.queued) return;
    entry.queued = true;
    entry.nextQueued = undefined;
    if (this.last === undefined) this.first = entry;
    else this.last.nextQueued = entry;
    this.last = entry;
    this.size++;
    this.sizeOf.set(entry.account, (this.sizeOf.get(entry.account) ?? 0) + 1);
  }

  /**
   * Takes every entry, or `account`'s alone, out of the queue. They stay marked queued (nothing
   * queues them again, so their chain holds) until each is handed to its write.
   */
  take(account?: string): TakenEntries<T> {
    if (account === undefined) {
      const taken = new TakenEntries(this.first, this.size);
      this.first = this.last = undefined;
      this.size = 0;
      this.resetSizes();
      return taken;
    }
    const count = this.sizeOf.get(account);
    if (count === undefined || count === 0) return new TakenEntries<T>(undefined, 0);
    this.sizeOf.set(account, 0);
    let takenFirst: T | undefined;
    let takenLast: T | undefined;
    let keptLast: T | undefined;
    let entry = this.first;
    this.first = undefined;
    while (entry !== undefined) {
      const next = entry.nextQueued;
      entry.nextQueued = undefined;
      if (entry.account === account) {
        if (takenLast === undefined) takenFirst = entry;
        else takenLast.nextQueued = entry;
        takenLast = entry;
      } else {
        if (keptLast === undefined) this.first = entry;
        else keptLast.nextQueued = entry;
        keptLast = entry;
      }
      entry = next;
    }
    this.last = keptLast;
    this.size -= count;
    return new TakenEntries(takenFirst, count);
  }

  /** How many sellers have a count kept, waiting or not (see `sizeOf`). */
  get sellersCounted(): number {
    return this.sizeOf.size;
  }

  private resetSizes(): void {
    // Sellers who validated once and never again would stay counted for good: past the bound, a fresh map.
    if (this.sizeOf.size > SELLERS_COUNTED) {
      this.sizeOf.clear();
      return;
    }
    for (const account of this.sizeOf.keys()) this.sizeOf.set(account, 0);
  }
}

/** Entries taken out of a FlushQueue, handed out in parts in the order they were queued. */
export class TakenEntries<T extends Queueable<T>> {
  constructor(
    private next: T | undefined,
    private left: number,
  ) {}

  /** How many are not handed out yet. */
  get remaining(): number {
    return this.left;
  }

  /**
   * The next `into.length` entries, in `into` (an array kept for every flush, so a full part
   * allocates nothing); fewer left than that, a new array of them.
   */
  nextPart(into: T[]): T[] {
    const part = this.left >= into.length ? into : new Array<T>(this.left);
    for (let at = 0; at < part.length; at++) {
      const entry = this.next as T;
      part[at] = entry;
      this.next = entry.nextQueued;
    }
    this.left -= part.length;
    return part;
  }

  /** Hands out every entry left, each one's place in the chain read before `each` sees it. */
  forEachLeft(each: (entry: T) => void): void {
    while (this.left > 0) {
      const entry = this.next as T;
      this.next = entry.nextQueued;
      this.left--;
      each(entry);
    }
  }
}

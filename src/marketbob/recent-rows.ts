/**
 * The rows of the follower's overlap (see OVERLAP_SECONDS in marketbob-follower.ts) as they were
 * last written, by table and id: a row read again exactly as it was is not written again, so a
 * poll that finds nothing new writes nothing (no transaction, no commit) however many recent rows
 * it reads again. Only rows read again by the overlap are compared; a row new or saved since the
 * mark is always written. Forgotten as they leave the overlap, and all at once whenever what a
 * row's line depends on besides the row may have changed (the source's settings, a category, a
 * rename, a row skipped).
 */
export class RecentRows {
  private readonly rows = new Map<string, { readonly print: string; readonly updatedAt: string }>();

  /** True when this row, read again, is exactly as it was when last written. */
  unchanged(table: string, row: { readonly id: number; readonly updated_at: string | null }): boolean {
    const known = this.rows.get(`${table}:${row.id}`);
    return known !== undefined && known.print === JSON.stringify(row);
  }

  /** Remembers these rows as written (the store committed them, or had them already). */
  remember(table: string, rows: readonly { readonly id: number; readonly updated_at: string | null }[]): void {
    for (const row of rows) {
      if (row.updated_at === null) continue;
      this.rows.set(`${table}:${row.id}`, { print: JSON.stringify(row), updatedAt: row.updated_at });
    }
  }

  /** Forgets the rows saved before `since` (MarketBob's wall-clock text): the overlap no longer reads them. */
  forgetBefore(since: string): void {
    for (const [key, row] of this.rows) if (row.updatedAt < since) this.rows.delete(key);
  }

  clear(): void {
    this.rows.clear();
  }
}

import { DAY_MS, dayOf } from '../activity/activity-days.js';
import type { CodeActivity, TopCode } from '../activity/activity-report.js';
import type { ActivityReader } from '../activity/purchase-activity.js';
import type { PurchaseStatus } from '../records/rows.js';
import type { ActivationRow } from '../store/activations/activation-store.js';
import type { Store } from '../store/store.js';

/** The page's windows (the last 7 and 30 days), the default first. */
export const PAGE_WINDOWS = [30, 7] as const;
/** Rows of the page's table and of its CSV. */
export const PAGE_ROWS = 50;
/** Days the one code's chart shows, today included. */
export const CHART_DAYS = 30;

/** One row of the table: a code of the seller's, what it is for, how it was used in the window. */
export interface CodeRow {
  readonly code: string;
  readonly itemId: number;
  /** Undefined when the item is no longer in the store. */
  readonly itemName: string | undefined;
  readonly purchasedAt: string;
  readonly status: PurchaseStatus;
  readonly validations: number;
  readonly networks: number;
  readonly firstSeen: number;
  readonly lastSeen: number;
}

/**
 * The seller's codes seen from the most networks in the last `days` days, with their purchases.
 * The list comes from the API's activity reports (made off the serving thread, as for the API).
 */
export async function codeRows(
  store: Store,
  reports: ActivityReader,
  account: string,
  days: number,
): Promise<CodeRow[]> {
  const top = await reports.top(account, days, PAGE_ROWS);
  const rows: CodeRow[] = [];
  for (const code of top) {
    const row = await describeCode(store, account, code);
    if (row !== undefined) rows.push(row);
  }
  return rows;
}

/** A code's purchase and item, while both are still the seller's. */
async function describeCode(store: Store, account: string, code: TopCode): Promise<CodeRow | undefined> {
  const purchase = await store.purchase(code.codeKey);
  const item = purchase && (await store.item(purchase.item_id));
  // A code that has passed to another seller since (an import) is no longer shown.
  if (purchase === undefined || item?.account !== account) return undefined;
  return {
    code: purchase.code,
    itemId: purchase.item_id,
    itemName: item.name,
    purchasedAt: purchase.date,
    status: purchase.status,
    validations: code.validations,
    networks: code.networks,
    firstSeen: code.firstSeen,
    lastSeen: code.lastSeen,
  };
}

/** One code of the seller's, found by the text a seller typed: its purchase, item and activity. */
export interface CodeDetails {
  readonly code: string;
  readonly codeKey: string;
  readonly itemId: number;
  readonly itemName: string | undefined;
  readonly purchasedAt: string;
  readonly status: PurchaseStatus;
  readonly activity: CodeActivity;
  /** The instances the code holds, oldest first, and its item's limit (null: none). */
  readonly activations: readonly ActivationRow[];
  readonly activationLimit: number | null;
}

/** The seller's code `text` (trimmed, any case), or undefined when it is not one of theirs. */
export async function codeDetails(
  store: Store,
  reports: ActivityReader,
  account: string,
  codeKey: string,
): Promise<CodeDetails | undefined> {
  const purchase = await store.purchase(codeKey);
  const item = purchase && (await store.item(purchase.item_id));
  if (purchase === undefined || item?.account !== account) return undefined;
  return {
    code: purchase.code,
    codeKey,
    itemId: item.id,
    itemName: item.name,
    purchasedAt: purchase.date,
    status: purchase.status,
    activity: await reports.ofCode(account, codeKey),
    activations: await store.activations().ofCode(codeKey),
    activationLimit: (await store.activations().activationLimit(item.id)) ?? null,
  };
}

/** One bar of the chart, in the SVG's own units. */
export interface ChartBar {
  readonly date: string;
  readonly validations: number;
  readonly networks: number;
  readonly x: number;
  readonly y: number;
  readonly height: number;
}

export interface DayChart {
  readonly width: number;
  readonly height: number;
  readonly barWidth: number;
  /** Where the bars stand. */
  readonly baseline: number;
  readonly bars: readonly ChartBar[];
  readonly max: number;
  readonly total: number;
  /** The busiest day: the latest of equals. */
  readonly busiest: ChartBar | undefined;
}

const CHART = { width: 600, height: 120, gap: 4, top: 8 } as const;

/**
 * The last CHART_DAYS days of a code as bars, oldest on the left, days without validations at
 * zero. Drawn by the page as inline SVG, whose geometry is attributes rather than styles: the
 * page's Content-Security-Policy allows no inline style, and needs no script or asset for it.
 */
export function dayChart(activity: CodeActivity, now = Date.now()): DayChart {
  const byDate = new Map(activity.days.map((day) => [day.date, day]));
  const step = CHART.width / CHART_DAYS;
  const barWidth = step - CHART.gap;
  const baseline = CHART.height;
  const days = Array.from({ length: CHART_DAYS }, (_, index) => dayOf(now - (CHART_DAYS - 1 - index) * DAY_MS));
  const max = Math.max(0, ...days.map((date) => byDate.get(date)?.validations ?? 0));
  const bars = days.map((date, index) => {
    const day = byDate.get(date);
    const validations = day?.validations ?? 0;
    // A day with any validation shows at least a sliver.
    const height = max === 0 || validations === 0 ? 0 : Math.max(2, ((baseline - CHART.top) * validations) / max);
    return {
      date,
      validations,
      networks: day?.networks ?? 0,
      x: Math.round(index * step * 100) / 100,
      y: Math.round((baseline - height) * 100) / 100,
      height: Math.round(height * 100) / 100,
    };
  });
  const busiest = bars.reduce<ChartBar | undefined>(
    (best, bar) => (bar.validations > 0 && (best === undefined || bar.validations >= best.validations) ? bar : best),
    undefined,
  );
  return {
    width: CHART.width,
    height: CHART.height,
    barWidth: Math.round(barWidth * 100) / 100,
    baseline,
    bars,
    max,
    total: bars.reduce((sum, bar) => sum + bar.validations, 0),
    busiest,
  };
}

const CSV_COLUMNS = [
  'purchase_code',
  'item_id',
  'item_name',
  'purchase_date',
  'status',
  'validations',
  'networks',
  'first_seen',
  'last_seen',
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. A text that a
 * spreadsheet would run as a formula (=, +, -, @, tab, carriage return first) is written after a
 * single quote, so opening the file runs nothing.
 */
function csvField(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The table as CSV: a header line, then a line per code, CRLF line ends, times in ISO 8601 UTC. */
export function codeRowsCsv(rows: readonly CodeRow[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of rows) {
    lines.push(
      [
        row.code,
        row.itemId,
        row.itemName ?? '',
        row.purchasedAt,
        row.status,
        row.validations,
        row.networks,
        new Date(row.firstSeen).toISOString(),
        new Date(row.lastSeen).toISOString(),
      ]
        .map(csvField)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A time as the page shows it: ISO for the `datetime` attribute, words in the page's language (UTC). */
export interface ShownTime {
  readonly iso: string;
  readonly text: string;
}

/** How the page writes dates, times and counts in a locale, in UTC (the server knows no seller's zone). */
export function pageFormats(locale: string) {
  const day = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const time = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  const count = new Intl.NumberFormat(locale);
  return {
    day: (at: string | number): ShownTime => {
      const date = new Date(typeof at === 'string' && at.length === 10 ? `${at}T00:00:00.000Z` : at);
      return { iso: date.toISOString().slice(0, 10), text: day.format(date) };
    },
    time: (at: number): ShownTime => ({ iso: new Date(at).toISOString(), text: `${time.format(at)} UTC` }),
    count: (value: number) => count.format(value),
  };
}

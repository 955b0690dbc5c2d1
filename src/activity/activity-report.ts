import type { ActivityDay, ActivitySummary, Store } from '../store/store.js';
import { readSketch, windowStart } from './activity-days.js';
import { NetworkSketch } from './network-sketch.js';

/** Days listed in a code's activity: the most recent with any validation. */
export const LISTED_DAYS = 30;

export interface DayActivity {
  /** `YYYY-MM-DD`, UTC. */
  readonly date: string;
  readonly validations: number;
  readonly networks: number;
}

/** A code's activity over the retained days. */
export interface CodeActivity {
  readonly validations: number;
  readonly networks: number;
  /** Undefined when the code was not validated in the retained days. */
  readonly firstSeen: number | undefined;
  readonly lastSeen: number | undefined;
  /** The last LISTED_DAYS days with any validation, newest first. */
  readonly days: readonly DayActivity[];
}

/** A code in a seller's top list: its activity within the window. */
export interface TopCode {
  readonly codeKey: string;
  readonly validations: number;
  readonly networks: number;
  readonly firstSeen: number;
  readonly lastSeen: number;
}

/** The stored activity of one of `account`'s codes, over the last `retentionDays` days. */
export async function codeActivity(
  store: Pick<Store, 'activityDays'>,
  account: string,
  codeKey: string,
  retentionDays: number,
  now = Date.now(),
): Promise<CodeActivity> {
  const days = await store.activityDays(account, [codeKey], windowStart(now, retentionDays));
  const sketch = new NetworkSketch();
  let validations = 0;
  let firstSeen: number | undefined;
  let lastSeen: number | undefined;
  for (const day of days) {
    sketch.merge(readSketch(day.sketch));
    validations += day.validations;
    firstSeen = firstSeen === undefined ? day.firstSeen : Math.min(firstSeen, day.firstSeen);
    lastSeen = lastSeen === undefined ? day.lastSeen : Math.max(lastSeen, day.lastSeen);
  }
  return {
    validations,
    networks: sketch.estimate(),
    firstSeen,
    lastSeen,
    days: days
      .slice(0, LISTED_DAYS)
      .map((day) => ({ date: day.day, validations: day.validations, networks: day.networks })),
  };
}

/** Codes whose sketches are read at a time while the top list is made. */
const CANDIDATES_PER_READ = 100;

const byRank = (a: TopCode, b: TopCode) =>
  b.networks - a.networks ||
  b.validations - a.validations ||
  (a.codeKey < b.codeKey ? -1 : a.codeKey > b.codeKey ? 1 : 0);

/** Waits between two reads of a long report (see report-pace.ts); resolves at once when unpaced. */
export type ReportPace = () => Promise<void>;

/**
 * The `limit` codes of `account` seen from the most distinct networks in the last `days` days,
 * most first (then most validations). A code's networks over several days are the union of its
 * days' sketches, which only reading them tells; so codes are taken in the order of their days'
 * network counts added up (no code can have more networks than that), and the sketches of a code
 * are read only while that sum could still beat the list's last entry. A code validated on one
 * day only (or whose networks all came on its busiest day) needs no reading at all.
 */
export async function topCodes(
  store: Pick<Store, 'activityDays' | 'activitySummaries'>,
  account: string,
  days: number,
  limit: number,
  now = Date.now(),
  pace?: ReportPace,
): Promise<TopCode[]> {
  const since = windowStart(now, days);
  const candidates = (await store.activitySummaries(account, since)).sort((a, b) => b.networkDays - a.networkDays);
  const top: TopCode[] = [];
  const last = () => (top.length < limit ? -1 : (top[limit - 1] as TopCode).networks);
  let next = 0;
  while (next < candidates.length && (candidates[next] as ActivitySummary).networkDays > last()) {
    const batch: ActivitySummary[] = [];
    while (batch.length < CANDIDATES_PER_READ && next < candidates.length) {
      const candidate = candidates[next] as ActivitySummary;
      if (candidate.networkDays <= last()) break;
      batch.push(candidate);
      next++;
    }
    const toRead = batch.filter((code) => code.networkDays > code.busiestDay).map((code) => code.codeKey);
    const sketches = new Map<string, NetworkSketch>();
    for (const day of toRead.length === 0 ? [] : await store.activityDays(account, toRead, since)) {
      mergeInto(sketches, day);
    }
    for (const code of batch) {
      const networks = sketches.get(code.codeKey)?.estimate() ?? code.busiestDay;
      top.push({
        codeKey: code.codeKey,
        validations: code.validations,
        networks,
        firstSeen: code.firstSeen,
        lastSeen: code.lastSeen,
      });
    }
    top.sort(byRank);
    top.length = Math.min(top.length, limit);
    if (pace !== undefined && next < candidates.length) await pace();
  }
  return top;
}

function mergeInto(sketches: Map<string, NetworkSketch>, day: ActivityDay): void {
  let sketch = sketches.get(day.codeKey);
  if (sketch === undefined) {
    sketch = new NetworkSketch();
    sketches.set(day.codeKey, sketch);
  }
  sketch.merge(readSketch(day.sketch));
}

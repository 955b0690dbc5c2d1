/**
 * How far the store is behind MarketBob, as `/readyz` and the metrics say it. The follower gives
 * the facts (`FollowerStatus`); `judgeSourceHealth` turns them into one of a few states.
 */

/** What the follower knows of its own progress. Times are ms since the epoch. */
export interface FollowerStatus {
  /** Failed attempts in a row (0 once one succeeds). */
  readonly failures: number;
  /**
   * When the store last held everything MarketBob had: the start of the last sync or poll that
   * read every new and saved row (not one cut short by its page size). Undefined before any.
   */
  readonly caughtUpAt: number | undefined;
  /** When this follower started (the lag is counted from there before it first catches up). */
  readonly startedAt: number;
}

/**
 * - `following`: the store caught up with MarketBob less than `behindSeconds` ago and the last attempt succeeded;
 * - `behind`: the last attempt failed, the first sync has not finished, or the last catch-up is older than `behindSeconds`;
 * - `standby`: another instance sharing the PostgreSQL store follows (this one would take over);
 * - `unknown`: this process asked the one that follows (the primary of WORKERS) and had no answer.
 */
export type FollowState = 'following' | 'behind' | 'standby' | 'unknown';

/** Why the source is behind. */
export type BehindReason = 'source_unreachable' | 'first_sync' | 'slow';

export interface SourceHealth {
  readonly state: FollowState;
  /**
   * Seconds since the store last held everything MarketBob had (before the first catch-up: since
   * the follower started, so at least that); null where this process cannot know (standby, unknown).
   */
  readonly lagSeconds: number | null;
  /** Set when `state` is `behind`. */
  readonly reason?: BehindReason;
}

export const STANDBY: SourceHealth = Object.freeze({ state: 'standby', lagSeconds: null });
export const UNKNOWN: SourceHealth = Object.freeze({ state: 'unknown', lagSeconds: null });

/** The follower's facts judged against `behindSeconds` (config `marketbob.behindSeconds`) at `now`. */
export function judgeSourceHealth(status: FollowerStatus, behindSeconds: number, now = Date.now()): SourceHealth {
  const since = status.caughtUpAt ?? status.startedAt;
  const lagSeconds = Math.max(0, (now - since) / 1000);
  if (status.failures > 0) return { state: 'behind', lagSeconds, reason: 'source_unreachable' };
  if (status.caughtUpAt === undefined) return { state: 'behind', lagSeconds, reason: 'first_sync' };
  if (lagSeconds > behindSeconds) return { state: 'behind', lagSeconds, reason: 'slow' };
  return { state: 'following', lagSeconds };
}

/** A SourceHealth as it crosses the cluster channel, checked: anything else is `unknown`. */
export function readSourceHealth(value: unknown): SourceHealth {
  if (typeof value !== 'object' || value === null) return UNKNOWN;
  const { state, lagSeconds, reason } = value as Record<string, unknown>;
  const states: readonly unknown[] = ['following', 'behind', 'standby', 'unknown'];
  const reasons: readonly unknown[] = ['source_unreachable', 'first_sync', 'slow'];
  if (!states.includes(state)) return UNKNOWN;
  if (lagSeconds !== null && typeof lagSeconds !== 'number') return UNKNOWN;
  if (reason !== undefined && !reasons.includes(reason)) return UNKNOWN;
  return {
    state: state as FollowState,
    lagSeconds: lagSeconds as number | null,
    ...(reason === undefined ? {} : { reason: reason as BehindReason }),
  };
}

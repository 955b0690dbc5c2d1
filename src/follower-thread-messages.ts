import type { FollowedSettings } from './marketbob/marketbob-settings.js';
import type { FollowerStatus } from './marketbob/source-health.js';

/** To the follower's thread. */
export type ToFollower = { readonly type: 'stop' };

/** From the follower's thread: how it follows (sent when that changes), and that it started. */
export type FollowerReport =
  | {
      readonly type: 'state';
      /** It holds the follower lock (else it stands by). */
      readonly following: boolean;
      /** The running follower's facts; undefined while standing by. */
      readonly status: FollowerStatus | undefined;
      readonly settings: FollowedSettings | undefined;
    }
  | { readonly type: 'started' };

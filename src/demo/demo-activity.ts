import { NetworkSketch } from '../activity/network-sketch.js';
import { purchaseCodeKey } from '../domain/purchase-code.js';
import type { ActivityDelta } from '../store/store.js';
import { DEMO_PURCHASE_CODE, DEMO_SELLER } from './demo-data.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
/** A month: what the purchase-codes page's chart shows. */
export const DEMO_ACTIVITY_DAYS = 30;

/** The demo codes' usage: a busy one and a quiet one, on a few networks each. */
const DEMO_CODES = [
  { code: DEMO_PURCHASE_CODE, perDay: 9, networks: 4, seed: 0x2f6b_1a3d },
  { code: 'DEMO-VALID-0002', perDay: 3, networks: 2, seed: 0x51c7_09e2 },
] as const;

/** A small fixed generator (xorshift32): the demo looks the same on every start. */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
}

/**
 * The demo seller's purchase-code activity over the last month up to `now`, as what flushes of
 * the validation path would have written: weekdays busier than weekends, a quiet day now and
 * then, the networks of the day (stand-in hashes: the demo has no real clients).
 */
export function demoActivity(now: number): ActivityDelta[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const deltas: ActivityDelta[] = [];
  for (const { code, perDay, networks, seed } of DEMO_CODES) {
    const random = generator(seed);
    const codeKey = purchaseCodeKey(code) as string;
    for (let back = DEMO_ACTIVITY_DAYS - 1; back >= 0; back -= 1) {
      const start = today - back * DAY_MS;
      const weekday = new Date(start).getUTCDay();
      const weekend = weekday === 0 || weekday === 6;
      const quiet = random() < 0.12;
      const validations = quiet ? 0 : Math.max(1, Math.round(perDay * (weekend ? 0.4 : 1) * (0.5 + random())));
      if (validations === 0) continue;
      const firstSeen = Math.min(start + 7 * HOUR_MS + Math.floor(random() * 3 * HOUR_MS), now);
      const lastSeen = Math.min(firstSeen + Math.floor(random() * 12 * HOUR_MS), now);
      const sketch = new NetworkSketch();
      const seen = 1 + Math.floor(random() * networks);
      for (let network = 0; network < seen; network += 1) sketch.add((seed + network * 0x9e37_79b9) >>> 0);
      const text = sketch.serialize();
      deltas.push({
        account: DEMO_SELLER,
        codeKey,
        day: new Date(start).toISOString().slice(0, 10),
        validations,
        firstSeen,
        lastSeen,
        networksStored: false,
        sketchWith(stored) {
          const merged = NetworkSketch.parse(text);
          if (stored !== undefined) merged.merge(NetworkSketch.parse(stored));
          return { sketch: merged.serialize(), networks: merged.estimate() };
        },
      });
    }
  }
  return deltas;
}

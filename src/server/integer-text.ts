/** Whole numbers below this have their text made once: lengths, seconds, small budgets. */
const KEPT = 4096;
const KEPT_TEXTS = Array.from({ length: KEPT }, (_, n) => String(n));

/**
 * A whole number's decimal text, never one made in the old generation per call. `${n}` and
 * `String(n)` go through V8's number-to-string cache, which makes each string it caches there: a
 * number that changes with every request (RateLimit-Remaining counts down) left about 34 bytes
 * there per request, garbage that only a mark-compact takes back, one every 10 to 20 s under full
 * load, each pausing every request in flight. `toFixed` is not cached: its text is made in the
 * young generation and goes with the request's other garbage. It costs about 80 ns where a cached
 * conversion costs a few, so the numbers most headers carry (a body's length, a reset's seconds)
 * are looked up instead.
 */
export function integerText(value: number): string {
  return value >= 0 && value < KEPT ? (KEPT_TEXTS[value] ?? value.toFixed(0)) : value.toFixed(0);
}

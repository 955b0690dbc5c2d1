import type { SourceHealth } from '../marketbob/source-health.js';

/** How far the store is behind the source it follows (MarketBob), asked on each `/readyz`. */
export type SourceProbe = () => Promise<SourceHealth>;

let registered: SourceProbe | undefined;

/**
 * Tells `/readyz` how to learn the source's health: `main.ts` sets it when a MarketBob source is
 * configured (the follower in this process, or a question to the primary that runs it). A slot of
 * the process rather than an option of the app: the app is built the same way with or without a
 * source, and only the process knows where its follower runs. Undefined takes it away (tests).
 */
export function setSourceProbe(probe: SourceProbe | undefined): void {
  registered = probe;
}

/** The probe `main.ts` set, if any. */
export function sourceProbe(): SourceProbe | undefined {
  return registered;
}

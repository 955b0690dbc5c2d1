/**
 * Counts failed attempts (unknown keys, invalid purchase codes) per client address in fixed
 * windows, so nobody can guess keys or codes at speed. In memory, per process: each instance
 * limits on its own, which bounds a guesser to N x max per window behind N instances.
 */
export interface FailureLimiter {
  /** Seconds until the client may try again, or 0 when it is within its budget. */
  retryAfter(client: string): number;
  recordFailure(client: string): void;
}

export function createFailureLimiter(max: number, windowSeconds: number, now: () => number = Date.now): FailureLimiter {
  if (max === 0) return { retryAfter: () => 0, recordFailure: () => {} };
  const windowMs = windowSeconds * 1000;
  let windowStart = now();
  let failures = new Map<string, number>();
  // Starting a new window drops every count at once: memory stays bounded by one window's clients.
  const roll = () => {
    const time = now();
    if (time - windowStart >= windowMs) {
      windowStart = time - ((time - windowStart) % windowMs);
      failures = new Map();
    }
    return time;
  };
  return {
    retryAfter(client) {
      const time = roll();
      return (failures.get(client) ?? 0) >= max ? Math.max(1, Math.ceil((windowStart + windowMs - time) / 1000)) : 0;
    },
    recordFailure(client) {
      roll();
      failures.set(client, (failures.get(client) ?? 0) + 1);
    },
  };
}

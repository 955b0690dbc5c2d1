import type { FailureBudget, Limits } from '../limits/limits.js';

/** Failed logins allowed in each window (config `workspace.loginAttempts`). */
export interface LoginAttemptSettings {
  /** Per account and client address; halved for the day after each lockout, down to 1. */
  readonly perAccount: number;
  /** Per client address, whatever the accounts. */
  readonly perClient: number;
  readonly windowSeconds: number;
}

/** A login attempt let through: it holds its place in the budgets until it is settled. */
export interface AdmittedAttempt {
  readonly admitted: true;
  /** Settles the attempt: a failure is counted, a success gives its place back. */
  settle(outcome: 'failed' | 'succeeded'): Promise<void>;
}

export interface RefusedAttempt {
  readonly admitted: false;
  /** Seconds until this account and client may try again. */
  readonly retryAfter: number;
}

/**
 * Login attempts, limited before the password is checked. An attempt takes its place in the
 * budgets at once, synchronously (so that concurrent attempts cannot all pass a check made before
 * any of them failed), and gives it back only when it succeeds. Counted per account and client
 * (a stranger elsewhere cannot lock a seller out) and per client across accounts; failures are
 * counted with the limits machinery (shared through Redis when configured), places still being
 * checked in this process.
 */
export interface LoginAttempts {
  /** `account` names what the attempt is against: the resolved account's username, or the text typed for none. */
  admit(account: string, client: string): AdmittedAttempt | RefusedAttempt;
}

/** How long a lockout is remembered: the budget of an account and client stays smaller that long. */
const LOCKOUT_MEMORY_SECONDS = 24 * 3600;
/** Lockouts are counted without a ceiling: only how many there were is read. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** Failures of `id` counted in the current window (as far as this process knows). */
const failuresOf = (budget: FailureBudget, id: string) => {
  const state = budget.state(id);
  return state === undefined ? 0 : state.limit - state.remaining;
};

/** A count per id of attempts being checked right now. */
class InFlight {
  readonly #counts = new Map<string, number>();
  get(id: string): number {
    return this.#counts.get(id) ?? 0;
  }
  add(id: string, by: 1 | -1): void {
    const count = this.get(id) + by;
    if (count === 0) this.#counts.delete(id);
    else this.#counts.set(id, count);
  }
}

export function createLoginAttempts(limits: Limits, settings: LoginAttemptSettings): LoginAttempts {
  const { perAccount, perClient, windowSeconds } = settings;
  const clientFailures = limits.failureBudget('loginClient', { max: perClient, windowSeconds });
  const pairFailures = limits.failureBudget('loginAccountClient', { max: perAccount, windowSeconds });
  const lockouts = limits.failureBudget('loginLockouts', { max: UNBOUNDED, windowSeconds: LOCKOUT_MEMORY_SECONDS });
  const clientsInFlight = new InFlight();
  const pairsInFlight = new InFlight();

  /** This pair's budget in the current window: halved by each lockout of the last day. */
  const allowedFor = (pair: string) => Math.max(1, Math.floor(perAccount / 2 ** failuresOf(lockouts, pair)));
  const resetOf = (budget: FailureBudget, id: string) => budget.state(id)?.resetSeconds ?? windowSeconds;

  return {
    admit(account, client) {
      // JSON keeps the two parts apart whatever characters the typed text holds.
      const pair = JSON.stringify([account.toLowerCase(), client]);
      if (failuresOf(clientFailures, client) + clientsInFlight.get(client) >= perClient) {
        return { admitted: false, retryAfter: resetOf(clientFailures, client) };
      }
      const allowed = allowedFor(pair);
      if (failuresOf(pairFailures, pair) + pairsInFlight.get(pair) >= allowed) {
        return { admitted: false, retryAfter: resetOf(pairFailures, pair) };
      }
      clientsInFlight.add(client, 1);
      pairsInFlight.add(pair, 1);
      let settled = false;
      return {
        admitted: true,
        async settle(outcome) {
          if (settled) return;
          settled = true;
          try {
            if (outcome === 'failed') {
              await Promise.all([clientFailures.recordFailure(client), pairFailures.recordFailure(pair)]);
              // The failure that spends the budget is a lockout: the next windows allow fewer.
              if (failuresOf(pairFailures, pair) === allowed) await lockouts.recordFailure(pair);
            }
          } finally {
            clientsInFlight.add(client, -1);
            pairsInFlight.add(pair, -1);
          }
        },
      };
    },
  };
}

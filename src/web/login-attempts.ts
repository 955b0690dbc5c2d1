import type { Limits } from '../limits/limits.js';

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
 * budgets before its check starts, counted as a failure ahead of its outcome, in one atomic step
 * of the shared counters (Redis, or the primary of `WORKERS`; this process's own when it serves
 * alone), so that concurrent attempts, in any process or instance, cannot pass a budget together;
 * it gives its place back only when it succeeds. Counted per account and client (a stranger
 * elsewhere cannot lock a seller out) and per client across accounts.
 */
export interface LoginAttempts {
  /** `account` names what the attempt is against: the resolved account's username, or the text typed for none. */
  admit(account: string, client: string): Promise<AdmittedAttempt | RefusedAttempt>;
}

/** How long a lockout is remembered: the budget of an account and client stays smaller that long. */
const LOCKOUT_MEMORY_SECONDS = 24 * 3600;
/** Lockouts are counted without a ceiling: only how many there were is read. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

export function createLoginAttempts(limits: Limits, settings: LoginAttemptSettings): LoginAttempts {
  const { perAccount, perClient, windowSeconds } = settings;
  const clientFailures = limits.failureBudget('loginClient', { max: perClient, windowSeconds });
  const pairFailures = limits.failureBudget('loginAccountClient', { max: perAccount, windowSeconds });
  const lockouts = limits.failureBudget('loginLockouts', { max: UNBOUNDED, windowSeconds: LOCKOUT_MEMORY_SECONDS });

  /** This pair's budget in the current window: halved by each lockout of the last day. */
  const allowedFor = async (pair: string) => Math.max(1, Math.floor(perAccount / 2 ** (await lockouts.current(pair))));

  return {
    async admit(account, client) {
      // JSON keeps the two parts apart whatever characters the typed text holds.
      const pair = JSON.stringify([account.toLowerCase(), client]);
      const allowed = await allowedFor(pair);
      const places = await limits.takePlaces([
        { budget: clientFailures, id: client },
        { budget: pairFailures, id: pair, max: allowed },
      ]);
      if (!places.taken) return { admitted: false, retryAfter: places.retryAfter };
      // The attempt that took the pair's last place spends its budget if it fails: a lockout.
      const last = places.counts[1] === allowed;
      let settled = false;
      return {
        admitted: true,
        async settle(outcome) {
          if (settled) return;
          settled = true;
          if (outcome === 'succeeded') await places.giveBack();
          else if (last) await lockouts.recordFailure(pair);
        },
      };
    },
  };
}

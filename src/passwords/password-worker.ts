import { checkPasswordSync, hashLike, type PasswordCheck } from './password-hash.js';

/** What the password checker asks its worker threads (see password-checker.ts). */
export interface CheckTask {
  readonly password: string;
  readonly hash: string;
}

/** A password check, run in a worker thread: scrypt and bcrypt block the thread they run on. */
export function check({ password, hash }: CheckTask): PasswordCheck {
  return checkPasswordSync(password, hash);
}

/** A hash of a random password, of the given kind and cost (see `hashLike`). */
export function dummy(cost: string | undefined): string {
  return hashLike(cost);
}

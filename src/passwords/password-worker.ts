import { checkPasswordSync, hashLike, type PasswordCheck } from './password-hash.js';

/**
 * What the password checker asks its worker threads (see password-checker.ts): check `password`
 * against every hash of `hashes`, in order, and answer the check of `hashes[index]` (the others
 * are there for their time only).
 */
export interface CheckTask {
  readonly password: string;
  readonly hashes: readonly string[];
  readonly index: number;
}

/** A password check, run in a worker thread: scrypt and bcrypt block the thread they run on. */
export function check({ password, hashes, index }: CheckTask): PasswordCheck {
  let answer: PasswordCheck = { matches: false, needsRehash: false };
  hashes.forEach((hash, at) => {
    const outcome = checkPasswordSync(password, hash);
    if (at === index) answer = outcome;
  });
  return answer;
}

/** A hash of a random password, of the given kind and cost (see `hashLike`). */
export function dummy(cost: string | undefined): string {
  return hashLike(cost);
}

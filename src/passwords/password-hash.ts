import { randomBytes, type ScryptOptions, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import {
  HASH_COST_CAPS,
  isAcceptedPasswordHash,
  SCRYPT_MIN_LN,
  SCRYPT_PATTERN,
} from '../domain/password-hash-format.js';

/**
 * Password hashes. New ones are scrypt (node:crypto) in a self-describing text:
 * `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64 without padding, as PHC strings write them), so
 * the parameters can be raised later and old hashes still verify. Imported bcrypt hashes as
 * Laravel writes them (`$2y$10$...`, also `$2a$` and `$2b$`) verify too, and are to be replaced
 * by a scrypt hash at the next successful login (`needsRehash`).
 *
 * Costs are capped (`HASH_COST_CAPS`): a hash is chosen by whoever writes the import, and one
 * check of an uncapped hash could take seconds of CPU or a gigabyte of memory. A hash beyond the
 * caps is refused at import and matches nothing at login.
 */

/** 2^15 iterations, block size 8: 32 MiB of memory per hash (128 · r · 2^ln bytes). */
const CURRENT = { ln: 15, r: 8, p: 1 } as const;
/** The kind and cost of a new hash, as `hashCost` writes it. */
export const CURRENT_COST = `scrypt:ln=${CURRENT.ln},r=${CURRENT.r},p=${CURRENT.p}`;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Room for the largest parameters accepted below (128 * r * 2^ln bytes, and some). */
const maxmemFor = (ln: number, r: number) => 128 * r * 2 ** ln * 2;

function scryptAsync(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** A new scrypt hash of `password`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { ln, r, p } = CURRENT;
  const key = await scryptAsync(password, salt, HASH_BYTES, { N: 2 ** ln, r, p, maxmem: maxmemFor(ln, r) });
  return `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(key)}`;
}

/**
 * A hash of a random password of the given kind and cost (as `hashCost` writes it; the current
 * scrypt when it is not one this service accepts). Synchronous: made in the password worker.
 */
export function hashLike(cost: string | undefined): string {
  const password = randomBytes(16).toString('hex');
  const bcryptCost = /^bcrypt:(\d+)$/.exec(cost ?? '');
  if (bcryptCost && Number(bcryptCost[1]) <= HASH_COST_CAPS.bcryptCost) {
    // bcryptjs writes $2b$; Laravel's $2y$ is the same algorithm and costs the same to check.
    return bcrypt.hashSync(password, Number(bcryptCost[1]));
  }
  const scryptLn = Number(/^scrypt:ln=(\d+),r=8,p=1$/.exec(cost ?? '')?.[1]);
  const ln = scryptLn >= SCRYPT_MIN_LN && scryptLn <= HASH_COST_CAPS.scryptLn ? scryptLn : CURRENT.ln;
  const salt = randomBytes(SALT_BYTES);
  const key = scryptSync(password, salt, HASH_BYTES, { N: 2 ** ln, r: 8, p: 1, maxmem: maxmemFor(ln, 8) });
  return `$scrypt$ln=${ln},r=8,p=1$${b64(salt)}$${b64(key)}`;
}

/** Whether the password matches, and whether its hash should be replaced by a current one. */
export interface PasswordCheck {
  readonly matches: boolean;
  readonly needsRehash: boolean;
}

const NO_MATCH: PasswordCheck = { matches: false, needsRehash: false };

/**
 * Checks `password` against a stored hash on this thread, blocking it (the password worker's
 * task; see password-checker.ts). A hash of no known kind, or beyond the caps, matches nothing.
 */
export function checkPasswordSync(password: string, hash: string): PasswordCheck {
  if (!isAcceptedPasswordHash(hash)) return NO_MATCH;
  const stored = readScrypt(hash);
  if (stored) {
    const { ln, r, p, salt, expected } = stored;
    return scryptOutcome(
      stored,
      scryptSync(password, salt, expected.length, { N: 2 ** ln, r, p, maxmem: maxmemFor(ln, r) }),
    );
  }
  // bcryptjs reads 2y (PHP's name for the fixed 2a) itself; the comparison is its own, constant-time.
  const matches = bcrypt.compareSync(password, hash);
  return { matches, needsRehash: matches };
}

/** A stored scrypt hash's parameters, salt and hash; undefined for a hash of another kind. */
function readScrypt(hash: string) {
  const match = SCRYPT_PATTERN.exec(hash);
  if (!match) return undefined;
  const [ln, r, p] = match.slice(1, 4).map(Number) as [number, number, number];
  return {
    ln,
    r,
    p,
    salt: Buffer.from(match[4] as string, 'base64'),
    expected: Buffer.from(match[5] as string, 'base64'),
  };
}

/** Whether the key derived from the password is the stored one, and whether its parameters are old. */
function scryptOutcome(stored: NonNullable<ReturnType<typeof readScrypt>>, key: Buffer): PasswordCheck {
  const matches = timingSafeEqual(key, stored.expected);
  const current = stored.ln === CURRENT.ln && stored.r === CURRENT.r && stored.p === CURRENT.p;
  return { matches, needsRehash: matches && !current };
}

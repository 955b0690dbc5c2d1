import { randomBytes, type ScryptOptions, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';

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

/** 2^15 iterations, block size 8: about 32 MiB and some tens of milliseconds per hash. */
const CURRENT = { ln: 15, r: 8, p: 1 } as const;
/** The most a stored hash may cost: bcrypt 2^12 rounds (about 0.3 s here), scrypt 2^16 with r=8, p=1 (64 MiB). */
export const HASH_COST_CAPS = { bcryptCost: 12, scryptLn: 16, scryptR: 8, scryptP: 1 } as const;
const SCRYPT_MIN_LN = 10;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Room for the largest parameters accepted below (128 * r * 2^ln bytes, and some). */
const maxmemFor = (ln: number, r: number) => 128 * r * 2 ** ln * 2;

const SCRYPT_PATTERN = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{32,})$/;
/** Any bcrypt cost bcrypt itself accepts (4 to 31): the cap is checked apart, to say why a hash is refused. */
const BCRYPT_PATTERN = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

function scryptAsync(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** The kind and cost of a hash, as a text (`bcrypt:10`, `scrypt:ln=15,r=8,p=1`), or undefined for no known kind. */
export function hashCost(hash: string): string | undefined {
  const scryptMatch = SCRYPT_PATTERN.exec(hash);
  if (scryptMatch) return `scrypt:ln=${Number(scryptMatch[1])},r=${Number(scryptMatch[2])},p=${Number(scryptMatch[3])}`;
  const bcryptMatch = BCRYPT_PATTERN.exec(hash);
  return bcryptMatch ? `bcrypt:${Number(bcryptMatch[1])}` : undefined;
}

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

/** Why a hash cannot be stored, or undefined when it can. */
export function passwordHashProblem(hash: string): string | undefined {
  const scryptMatch = SCRYPT_PATTERN.exec(hash);
  if (scryptMatch) {
    const [ln, r, p] = scryptMatch.slice(1, 4).map(Number) as [number, number, number];
    if (ln < SCRYPT_MIN_LN || r !== HASH_COST_CAPS.scryptR || p !== HASH_COST_CAPS.scryptP) {
      return `password_hash: a $scrypt$ hash must have ln from ${SCRYPT_MIN_LN} to ${HASH_COST_CAPS.scryptLn}, r=8 and p=1`;
    }
    if (ln > HASH_COST_CAPS.scryptLn) {
      return `password_hash costs more than this service checks (scrypt ln at most ${HASH_COST_CAPS.scryptLn}, with r=8 and p=1)`;
    }
    return undefined;
  }
  const bcryptMatch = BCRYPT_PATTERN.exec(hash);
  if (bcryptMatch) {
    return Number(bcryptMatch[1]) > HASH_COST_CAPS.bcryptCost
      ? `password_hash costs more than this service checks (bcrypt cost at most ${HASH_COST_CAPS.bcryptCost})`
      : undefined;
  }
  return 'password_hash must be a bcrypt hash ($2y$, $2a$ or $2b$) or a $scrypt$ hash this service wrote';
}

/** True for a hash this service can verify: its own scrypt text, or bcrypt (2a, 2b, 2y), within the cost caps. */
export function isAcceptedPasswordHash(hash: string): boolean {
  return passwordHashProblem(hash) === undefined;
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

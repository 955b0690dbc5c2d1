import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';

/**
 * Password hashes. New ones are scrypt (node:crypto) in a self-describing text:
 * `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64 without padding, as PHC strings write them), so
 * the parameters can be raised later and old hashes still verify. Imported bcrypt hashes as
 * Laravel writes them (`$2y$10$...`, also `$2a$` and `$2b$`) verify too, and are to be replaced
 * by a scrypt hash at the next successful login (`needsRehash`).
 */

/** 2^15 iterations, block size 8: about 32 MiB and some tens of milliseconds per hash. */
const CURRENT = { ln: 15, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Room for the largest parameters accepted below (128 * r * 2^ln bytes, and some). */
const maxmemFor = (ln: number, r: number) => 128 * r * 2 ** ln * 2;

const SCRYPT_PATTERN = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{32,})$/;
const BCRYPT_PATTERN = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

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

/** True for a hash this service can verify: its own scrypt text, or bcrypt (2a, 2b, 2y). */
export function isAcceptedPasswordHash(hash: string): boolean {
  const scryptMatch = SCRYPT_PATTERN.exec(hash);
  if (scryptMatch) {
    const [ln, r, p] = scryptMatch.slice(1, 4).map(Number) as [number, number, number];
    return ln >= 10 && ln <= 20 && r >= 1 && r <= 32 && p >= 1 && p <= 16;
  }
  return BCRYPT_PATTERN.test(hash);
}

/** Whether the password matches, and whether its hash should be replaced by a current one. */
export interface PasswordCheck {
  readonly matches: boolean;
  readonly needsRehash: boolean;
}

/** Checks `password` against a stored hash; a hash of no known kind matches nothing. */
export async function verifyPassword(password: string, hash: string): Promise<PasswordCheck> {
  const scryptMatch = SCRYPT_PATTERN.exec(hash);
  if (scryptMatch && isAcceptedPasswordHash(hash)) {
    const [ln, r, p] = scryptMatch.slice(1, 4).map(Number) as [number, number, number];
    const salt = Buffer.from(scryptMatch[4] as string, 'base64');
    const expected = Buffer.from(scryptMatch[5] as string, 'base64');
    const key = await scryptAsync(password, salt, expected.length, { N: 2 ** ln, r, p, maxmem: maxmemFor(ln, r) });
    const matches = timingSafeEqual(key, expected);
    return { matches, needsRehash: matches && (ln !== CURRENT.ln || r !== CURRENT.r || p !== CURRENT.p) };
  }
  if (BCRYPT_PATTERN.test(hash)) {
    // bcryptjs reads 2y (PHP's name for the fixed 2a) itself; the comparison is its own, constant-time.
    const matches = await bcrypt.compare(password, hash);
    return { matches, needsRehash: matches };
  }
  return { matches: false, needsRehash: false };
}

let dummy: Promise<string> | undefined;

/**
 * Spends about the time of a real check when there is no hash to check against (an unknown user,
 * an account without a password), so the answer's timing does not tell which it was.
 */
export async function verifyAgainstDummy(password: string): Promise<void> {
  await verifyPassword(password, await dummyHash());
}

/** The dummy hash, made once per process; call early so the first unknown user costs no more than the next. */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  return dummy;
}

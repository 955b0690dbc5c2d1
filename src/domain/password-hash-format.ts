/**
 * What a stored password hash may be (the rule the importer and the login share): scrypt in this
 * service's own text (`$scrypt$ln=15,r=8,p=1$<salt>$<hash>`), or bcrypt as Laravel writes it, each
 * within the cost caps. A hash is chosen by whoever writes the import, and one check of an uncapped
 * hash could take seconds of CPU or a gigabyte of memory. Hashing and checking are src/passwords'.
 */

/** The most a stored hash may cost: bcrypt 2^12 rounds, scrypt 2^16 with r=8, p=1 (64 MiB). */
export const HASH_COST_CAPS = { bcryptCost: 12, scryptLn: 16, scryptR: 8, scryptP: 1 } as const;

export const SCRYPT_MIN_LN = 10;

export const SCRYPT_PATTERN =
  /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{32,})$/;

/** Any bcrypt cost bcrypt itself accepts (4 to 31): the cap is checked apart, to say why a hash is refused. */
export const BCRYPT_PATTERN = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

/** The kind and cost of a hash, as a text (`bcrypt:10`, `scrypt:ln=15,r=8,p=1`), or undefined for no known kind. */
export function hashCost(hash: string): string | undefined {
  const scryptMatch = SCRYPT_PATTERN.exec(hash);
  if (scryptMatch) return `scrypt:ln=${Number(scryptMatch[1])},r=${Number(scryptMatch[2])},p=${Number(scryptMatch[3])}`;
  const bcryptMatch = BCRYPT_PATTERN.exec(hash);
  return bcryptMatch ? `bcrypt:${Number(bcryptMatch[1])}` : undefined;
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

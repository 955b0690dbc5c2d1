import { createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { inspect } from 'node:util';

/** Laravel's APP_KEY is 32 bytes for its default cipher, AES-256-CBC. */
const APP_KEY_BYTES = 32;
const IV_BYTES = 16;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * MarketBob's APP_KEY (`base64:` and 32 bytes): what its `encrypt()` sealed the two-factor secrets
 * with. The bytes cannot reach a log or a message by accident: JSON and `inspect` show neither.
 */
export class AppKey {
  readonly #bytes: Buffer;
  constructor(bytes: Buffer) {
    this.#bytes = Buffer.from(bytes);
  }
  /** @internal the key itself, for `decryptLaravelString` only. */
  bytes(): Buffer {
    return this.#bytes;
  }
  toJSON(): string {
    return '(set)';
  }
  [inspect.custom](): string {
    return 'AppKey (set)';
  }
}

/** The APP_KEY as Laravel's `.env` writes it (`base64:` + 32 bytes in base64); undefined for anything else. */
export function parseAppKey(text: string): AppKey | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('base64:')) return undefined;
  const encoded = trimmed.slice('base64:'.length);
  if (!BASE64.test(encoded)) return undefined;
  const bytes = Buffer.from(encoded, 'base64');
  return bytes.length === APP_KEY_BYTES ? new AppKey(bytes) : undefined;
}

/** A payload this key cannot open: the message says why, never what the payload or the key hold. */
export class LaravelDecryptError extends Error {
  constructor(reason: string) {
    super(`cannot decrypt the Laravel payload: ${reason}`);
    this.name = 'LaravelDecryptError';
  }
}

interface Payload {
  readonly iv: string;
  readonly value: string;
  readonly mac: string;
  readonly tag?: string;
}

const isPayload = (value: unknown): value is Payload => {
  const p = value as Record<string, unknown> | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.iv === 'string' &&
    typeof p.value === 'string' &&
    typeof p.mac === 'string' &&
    (p.tag === undefined || p.tag === null || typeof p.tag === 'string')
  );
};

/**
 * Opens what Laravel's `encrypt()` made under `key` with its default cipher, AES-256-CBC: base64
 * of the JSON `{iv, value, mac, tag}`, `mac` the HMAC-SHA256 (hex) of the base64 `iv` followed by
 * the base64 `value`, checked in constant time before anything is deciphered. The plaintext is
 * PHP-serialized; a serialized string (`s:16:"...";`, what `encrypt($text)` writes) is returned
 * as its text. Throws `LaravelDecryptError` for anything else (another key, another cipher, a
 * damaged payload).
 */
export function decryptLaravelString(payload: string, key: AppKey): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload.trim(), 'base64').toString('utf8'));
  } catch {
    throw new LaravelDecryptError('not base64 of a JSON object');
  }
  if (!isPayload(parsed)) throw new LaravelDecryptError('not an encrypted payload');
  // A tag is AES-GCM's: this reads the default cipher only.
  if (parsed.tag) throw new LaravelDecryptError('not AES-256-CBC');
  const iv = Buffer.from(parsed.iv, 'base64');
  if (!BASE64.test(parsed.iv) || iv.length !== IV_BYTES) throw new LaravelDecryptError('bad iv');
  if (!BASE64.test(parsed.value)) throw new LaravelDecryptError('bad value');
  const expected = createHmac('sha256', key.bytes())
    .update(parsed.iv + parsed.value, 'utf8')
    .digest();
  const given = /^[0-9a-f]{64}$/i.test(parsed.mac) ? Buffer.from(parsed.mac, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new LaravelDecryptError('the MAC does not match (another APP_KEY?)');
  }
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-cbc', key.bytes(), iv);
    plain = Buffer.concat([decipher.update(Buffer.from(parsed.value, 'base64')), decipher.final()]);
  } catch {
    throw new LaravelDecryptError('cannot decipher the value');
  }
  return unserializePhpString(plain);
}

/** PHP's `serialize()` of a string: `s:LENGTH:"BYTES";`, the length in bytes. */
function unserializePhpString(plain: Buffer): string {
  const text = plain.toString('latin1');
  const head = /^s:(\d+):"/.exec(text);
  if (head === null) throw new LaravelDecryptError('not a serialized string');
  const start = head[0].length;
  const length = Number(head[1]);
  if (plain.length !== start + length + 2 || text.slice(start + length) !== '";') {
    throw new LaravelDecryptError('not a serialized string');
  }
  return plain.subarray(start, start + length).toString('utf8');
}

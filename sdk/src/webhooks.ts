import type { WebhookEvent } from './contract.js';
import { subtle } from './web-crypto.js';

/**
 * Checks a webhook the marketplace sent, by the Standard Webhooks scheme
 * (https://www.standardwebhooks.com): the `webhook-signature` header holds one or more
 * `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the endpoint's
 * secret (the base64 after `whsec_`). Web Crypto only, so it runs wherever the client does.
 */

/** A webhook that must not be trusted: its signature, timestamp or headers are wrong. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Headers as Node gives them (`request.headers`), as a plain object, or a fetch `Headers`. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far from now `webhook-timestamp` may be, in seconds (default 300): an old request replayed is refused. */
  readonly toleranceSeconds?: number;
  /** Now, in ms since the epoch (tests). */
  readonly now?: number;
}

const base64 = globalThis as unknown as { atob(text: string): string; btoa(text: string): string };

function fromBase64(text: string): Uint8Array {
  const binary = base64.atob(text);
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function toBase64(bytes: ArrayBuffer): string {
  let binary = '';
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return base64.btoa(binary);
}

/** Compares two strings in time that depends on their length only. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : (value as string | undefined);
}

/** The text codecs every runtime with fetch has (the SDK's types name no runtime's globals). */
const { TextEncoder: Encoder, TextDecoder: Decoder } = globalThis as unknown as {
  TextEncoder: new () => { encode(text: string): Uint8Array };
  TextDecoder: new () => { decode(bytes: Uint8Array): string };
};
const encoder = new Encoder();
const decoder = new Decoder();

/**
 * Verifies a webhook's signature and age, and returns its parsed body; throws
 * WebhookVerificationError otherwise. Give the body exactly as received (the raw text or bytes,
 * not a re-serialised object), and the endpoint's secret (`whsec_...`; several while you switch
 * to a new one). Retries of one event carry the same `id`: skip an id you have handled.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds))
    throw new WebhookVerificationError('malformed webhook-timestamp');
  const now = (options.now ?? Date.now()) / 1000;
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - seconds) > tolerance) throw new WebhookVerificationError('webhook-timestamp is too far from now');
  const text = typeof body === 'string' ? body : decoder.decode(body);
  const signed = encoder.encode(`${id}.${timestamp}.${text}`);
  const given = signatures
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version, value]) => version === 'v1' && value !== undefined)
    .map(([, value]) => value as string);
  const crypto = await subtle();
  for (const candidate of typeof secret === 'string' ? [secret] : secret) {
    const raw = candidate.startsWith('whsec_') ? candidate.slice('whsec_'.length) : candidate;
    const key = await crypto.importKey('raw', fromBase64(raw), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const expected = toBase64(await crypto.sign('HMAC', key, signed));
    if (given.some((value) => sameText(value, expected))) {
      try {
        return JSON.parse(text) as WebhookEvent;
      } catch {
        throw new WebhookVerificationError('the body is not JSON');
      }
    }
  }
  throw new WebhookVerificationError('no signature matches the secret');
}

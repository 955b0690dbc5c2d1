import type { WebhookEvent } from './contract.js';
/**
 * Checks a webhook the marketplace sent, by the Standard Webhooks scheme
 * (https://www.standardwebhooks.com): the `webhook-signature` header holds one or more
 * `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the endpoint's
 * secret (the base64 after `whsec_`). Web Crypto only, so it runs wherever the client does.
 */
/** A webhook that must not be trusted: its signature, timestamp or headers are wrong. */
export declare class WebhookVerificationError extends Error {
    constructor(message: string);
}
/** Headers as Node gives them (`request.headers`), as a plain object, or a fetch `Headers`. */
export type WebhookHeaders = {
    get(name: string): string | null;
} | Readonly<Record<string, string | readonly string[] | undefined>>;
export interface VerifyWebhookOptions {
    /** How far from now `webhook-timestamp` may be, in seconds (default 300): an old request replayed is refused. */
    readonly toleranceSeconds?: number;
    /** Now, in ms since the epoch (tests). */
    readonly now?: number;
}
/**
 * Verifies a webhook's signature and age, and returns its parsed body; throws
 * WebhookVerificationError otherwise. Give the body exactly as received (the raw text or bytes,
 * not a re-serialised object), and the endpoint's secret (`whsec_...`; several while you switch
 * to a new one). Retries of one event carry the same `id`: skip an id you have handled.
 */
export declare function verifyWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string | readonly string[], options?: VerifyWebhookOptions): Promise<WebhookEvent>;

"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.WebhookVerificationError = void 0;
exports.verifyWebhook = verifyWebhook;
const web_crypto_js_1 = require("./web-crypto.js");
/**
 * Checks a webhook the marketplace sent, by the Standard Webhooks scheme
 * (https://www.standardwebhooks.com): the `webhook-signature` header holds one or more
 * `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the endpoint's
 * secret (the base64 after `whsec_`). Web Crypto only, so it runs wherever the client does.
 */
/** A webhook that must not be trusted: its signature, timestamp or headers are wrong. */
class WebhookVerificationError extends Error {
    constructor(message) {
        super(message);
        this.name = 'WebhookVerificationError';
    }
}
exports.WebhookVerificationError = WebhookVerificationError;
const base64 = globalThis;
function fromBase64(text) {
    const binary = base64.atob(text);
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
function toBase64(bytes) {
    let binary = '';
    for (const byte of new Uint8Array(bytes))
        binary += String.fromCharCode(byte);
    return base64.btoa(binary);
}
/** Compares two strings in time that depends on their length only. */
function sameText(a, b) {
    if (a.length !== b.length)
        return false;
    let difference = 0;
    for (let index = 0; index < a.length; index++)
        difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
    return difference === 0;
}
function header(headers, name) {
    if (typeof headers.get === 'function') {
        return headers.get(name) ?? undefined;
    }
    const record = headers;
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
    const value = key === undefined ? undefined : record[key];
    return Array.isArray(value) ? value[0] : value;
}
/** The text codecs every runtime with fetch has (the SDK's types name no runtime's globals). */
const { TextEncoder: Encoder, TextDecoder: Decoder } = globalThis;
const encoder = new Encoder();
const decoder = new Decoder();
/**
 * Verifies a webhook's signature and age, and returns its parsed body; throws
 * WebhookVerificationError otherwise. Give the body exactly as received (the raw text or bytes,
 * not a re-serialised object), and the endpoint's secret (`whsec_...`; several while you switch
 * to a new one). Retries of one event carry the same `id`: skip an id you have handled.
 */
async function verifyWebhook(body, headers, secret, options = {}) {
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
    if (Math.abs(now - seconds) > tolerance)
        throw new WebhookVerificationError('webhook-timestamp is too far from now');
    const text = typeof body === 'string' ? body : decoder.decode(body);
    const signed = encoder.encode(`${id}.${timestamp}.${text}`);
    const given = signatures
        .split(' ')
        .map((entry) => entry.split(','))
        .filter(([version, value]) => version === 'v1' && value !== undefined)
        .map(([, value]) => value);
    const crypto = await (0, web_crypto_js_1.subtle)();
    for (const candidate of typeof secret === 'string' ? [secret] : secret) {
        const raw = candidate.startsWith('whsec_') ? candidate.slice('whsec_'.length) : candidate;
        const key = await crypto.importKey('raw', fromBase64(raw), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
        const expected = toBase64(await crypto.sign('HMAC', key, signed));
        if (given.some((value) => sameText(value, expected))) {
            try {
                return JSON.parse(text);
            }
            catch {
                throw new WebhookVerificationError('the body is not JSON');
            }
        }
    }
    throw new WebhookVerificationError('no signature matches the secret');
}

import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { decryptApiKey, encryptApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { WebhookEndpointRow } from '../store/webhooks/webhook-rows.js';

/**
 * Signing by the Standard Webhooks scheme, with its own library: `webhook-id` (the event's id,
 * the same on every retry), `webhook-timestamp` (seconds), `webhook-signature` (`v1,<base64>`,
 * one per secret in use, space separated). Secrets are `whsec_` and 24 random bytes in base64,
 * sealed in the store with the server secret like API keys.
 */

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export function sealWebhookSecret(material: KeyMaterial, secret: string): string {
  return encryptApiKey(material, secret);
}

/** The secrets that sign for this endpoint now: its own, and the one it replaced while the overlap lasts. */
export function signingSecrets(material: KeyMaterial, endpoint: WebhookEndpointRow, now: number): string[] {
  const secrets = [decryptApiKey(material, endpoint.secret_cipher)];
  if (endpoint.previous_secret_cipher !== '' && endpoint.previous_secret_until > now) {
    secrets.push(decryptApiKey(material, endpoint.previous_secret_cipher));
  }
  return secrets;
}

export type SignedHeaders = {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
};

export function signWebhook(secrets: readonly string[], id: string, at: Date, body: string): SignedHeaders {
  const signature = secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

export { createClient, fetchSigningKeys, MarketplaceApiError, } from './client.js';
export { SignatureVerificationError, verifyAnswer, verifyLicense, } from './signatures.js';
export { verifyWebhook, WebhookVerificationError, } from './webhooks.js';

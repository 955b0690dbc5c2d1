export { createClient, MarketplaceApiError, } from './client.js';
export { verifyWebhook, WebhookVerificationError, } from './webhooks.js';

export { createClient, MarketplaceApiError, } from './client.js';

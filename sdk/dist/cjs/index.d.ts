export { type ClientOptions, createClient, type FetchLike, type FetchResponse, MarketplaceApiError, type MarketplaceClient, type RetryOptions, } from './client.js';
export type { Account, AudioMedia, ErrorBody, ImageMedia, Item, ItemMedia, Purchase, VideoMedia, } from './contract.js';

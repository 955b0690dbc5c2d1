export {
  type ClientOptions,
  createClient,
  type FetchLike,
  type FetchResponse,
  MarketplaceApiError,
  type MarketplaceClient,
  type RetryOptions,
  type TopPurchaseActivityOptions,
} from './client.js';
export type {
  Account,
  ActiveCode,
  AudioMedia,
  ErrorBody,
  ImageMedia,
  Item,
  ItemMedia,
  Purchase,
  PurchaseActivity,
  VideoMedia,
} from './contract.js';

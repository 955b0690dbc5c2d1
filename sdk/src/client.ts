import {
  ACTIVATION_NOT_FOUND_MESSAGES,
  type Account,
  type Activation,
  type ActivationCounts,
  type ActiveCode,
  INVALID_PURCHASE_CODE_MESSAGES,
  ITEM_NOT_FOUND_MESSAGES,
  type Item,
  MARKETBOB_INVALID_PURCHASE_CODE_MESSAGES,
  MARKETBOB_ITEM_NOT_FOUND_MESSAGES,
  MARKETBOB_NO_ITEMS_MESSAGES,
  type MarketbobAccount,
  type MarketbobItem,
  type MarketbobPurchase,
  NO_ITEMS_MESSAGES,
  type Purchase,
  type PurchaseActivity,
} from './contract.js';
import { type SigningKeySet, verifyAnswer } from './signatures.js';

/** The part of a fetch Response the client reads (so the types need neither DOM nor Node typings). */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** A fetch function: the global one by default. */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) => Promise<FetchResponse>;

/** Opt-in retries of answers that say when to come back (429, 503). */
export interface RetryOptions {
  /** Retries after the first try; 2 when left out. */
  readonly retries?: number;
  /** The longest wait accepted, in seconds: an answer asking for more is thrown at once. 60 when left out. */
  readonly maxWaitSeconds?: number;
}

export interface ClientOptions {
  /** The variant's base URL, such as `https://api.example.com` or `https://api.example.com/pt`. */
  readonly baseUrl: string;
  /** The seller's API key: sent in the `X-Api-Key` header, never in a URL. */
  readonly apiKey: string;
  /** Retry 429 and 503 answers, waiting as their `Retry-After` header says. Off unless given. */
  readonly retry?: RetryOptions | boolean;
  /** A fetch function to use instead of the global one. */
  readonly fetch?: FetchLike;
  /** The server's answers: the published contract's (the default). `'marketbob'`: see MarketbobClientOptions. */
  readonly shape?: 'contract';
  /**
   * The marketplace's public keys (its `{base}/.well-known/jwks.json`, fetched once from a server you
   * trust, or shipped with your software): with them every request sends a fresh `Signature-Nonce`,
   * and every answer must be signed for it by one of these keys, or the call throws
   * SignatureVerificationError. Without them answers are not checked.
   */
  readonly signingKeys?: SigningKeySet;
}

/**
 * A client of a server that answers as MarketBob's own API does (a variant configured with
 * `"shape": "marketbob"`, or MarketBob itself). MarketBob reads the key only as the `api_key`
 * parameter, so this client sends it so: in the query string of a GET, in the body of a POST.
 */
export interface MarketbobClientOptions extends Omit<ClientOptions, 'shape'> {
  readonly shape: 'marketbob';
}

/** Every error answer but the "none" ones, as one class: the HTTP status, the `status` word and `msg`. */
export class MarketplaceApiError extends Error {
  override readonly name = 'MarketplaceApiError';
  constructor(
    /** The HTTP status code, such as 401. */
    readonly httpStatus: number,
    /** The answer's `status` word, such as "error" or "Erro" ('' when the answer was not the API's JSON). */
    readonly status: string,
    /** The answer's `msg`. */
    readonly msg: string,
    /** Seconds the answer asked to wait (its `Retry-After` header), when it said. */
    readonly retryAfter?: number,
  ) {
    super(`${httpStatus} ${msg}`);
  }
}

export interface MarketplaceClient {
  /** The account that owns the key. */
  account(): Promise<Account>;
  /** The account's approved items, newest first; [] when it has none. */
  items(): Promise<Item[]>;
  /** One approved item of the account, or null when there is no such item. */
  item(id: number): Promise<Item | null>;
  /** The purchase a code is for, or null when the code is not a valid purchase of this account. */
  validatePurchase(code: string): Promise<Purchase | null>;
  /**
   * How one of the account's codes (valid, refunded or cancelled) is used: validations and distinct
   * client networks, in all and per day; null when the code is not the account's.
   */
  purchaseActivity(code: string): Promise<PurchaseActivity | null>;
  /** The account's codes seen from the most networks in the last `days` days (30), at most `limit` (50), most first. */
  topPurchaseActivity(options?: TopPurchaseActivityOptions): Promise<ActiveCode[]>;
  /**
   * Activates `instance` (a domain, a machine id: whatever names this install) on a code: `created`
   * or `existing` (the instance had one already) with the activation, the code's count and its
   * purchase; `limit_reached` when the code holds as many instances as its item allows; null when
   * the code is not a valid purchase of this account.
   */
  activate(code: string, instance: string): Promise<ActivationOutcome | null>;
  /**
   * Releases `instance` from a code, freeing its place: the code's count after; null when the code
   * is not a valid purchase of this account or the instance holds no activation of it.
   */
  deactivate(code: string, instance: string): Promise<ActivationCounts | null>;
  /**
   * An offline license token for a valid code (check it with verifyLicense, offline, until it
   * expires), optionally for one installation; null when the code is not a valid purchase of this account.
   */
  license(code: string, instance?: string): Promise<License | null>;
}

/** An offline license token, and when it expires (ISO 8601). */
export interface License {
  readonly license: string;
  readonly expires_at: string;
}

/** What activate() came to. */
export type ActivationOutcome =
  | {
      readonly kind: 'created' | 'existing';
      readonly activation: Activation;
      readonly activations: ActivationCounts;
      readonly purchase: Purchase;
    }
  | { readonly kind: 'limit_reached' };

/** The client of a server in MarketBob's shape: its four endpoints, its resources (null where MarketBob has NULL). */
export interface MarketbobClient {
  /** The account that owns the key. */
  account(): Promise<MarketbobAccount>;
  /** The author's approved items, newest first; [] when the server answers "No items found" (MarketBob's own code does for fewer than two). */
  items(): Promise<MarketbobItem[]>;
  /** One approved item of the author, or null when there is no such item. */
  item(id: number): Promise<MarketbobItem | null>;
  /** The purchase a code is for (MarketBob sends it under `item`), or null when the code is not a valid purchase of the author's. */
  validatePurchase(code: string): Promise<MarketbobPurchase | null>;
}

export interface TopPurchaseActivityOptions {
  /** The window in days, today (UTC) included: 1 to the server's retention (90 by default); 30 when left out. */
  readonly days?: number;
  /** How many codes at most, 1 to 100; 50 when left out. */
  readonly limit?: number;
}

declare function setTimeout(callback: () => void, milliseconds: number): unknown;

const sleep = (seconds: number) => new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000));

/** Seconds from a Retry-After header: delta-seconds or an HTTP date. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

type Body = Record<string | symbol, unknown>;

/** Marks a body that came with 201 (an activation made). */
const CREATED = Symbol('created');

/** A fresh nonce per request: 16 random bytes, hex. */
function newNonce(): string {
  const random = (globalThis as { crypto?: { getRandomValues(bytes: Uint8Array): Uint8Array } }).crypto;
  const bytes = new Uint8Array(16);
  if (random) random.getRandomValues(bytes);
  else for (let at = 0; at < bytes.length; at++) bytes[at] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A client of the contract's API; with `shape: 'marketbob'`, of a server in MarketBob's shape. */
export function createClient(options: MarketbobClientOptions): MarketbobClient;
export function createClient(options: ClientOptions): MarketplaceClient;
export function createClient(options: ClientOptions | MarketbobClientOptions): MarketplaceClient | MarketbobClient;
export function createClient(options: ClientOptions | MarketbobClientOptions): MarketplaceClient | MarketbobClient {
  return options.shape === 'marketbob' ? createMarketbobClient(options) : createContractClient(options);
}

/** How requests are sent: where the key goes, and the headers. */
interface Transport {
  readonly headers: Record<string, string>;
  /** The path (with its query) as sent, for a request with a body or without. */
  readonly path: (path: string, withBody: boolean) => string;
  /** The body's fields as sent. */
  readonly body: (fields: Record<string, string>) => Record<string, string>;
}

/** Sends requests: the success answer's body, or a MarketplaceApiError (after the retries asked for). */
function createSender(options: ClientOptions | MarketbobClientOptions, transport: Transport) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const globalFetch = (globalThis as unknown as { fetch?: FetchLike }).fetch;
  if (!options.fetch && !globalFetch) {
    throw new TypeError('createClient: no fetch function (Node 18+ has one; or pass options.fetch)');
  }
  const fetchFn = (options.fetch ?? globalFetch) as FetchLike;
  const retry = options.retry === true ? {} : options.retry || undefined;
  const retries = retry ? (retry.retries ?? 2) : 0;
  const maxWait = retry?.maxWaitSeconds ?? 60;
  const { headers } = transport;

  /** A success answer's body; any other answer thrown as a MarketplaceApiError. */
  async function send(method: 'GET' | 'POST', path: string, fields?: Record<string, string>): Promise<Body> {
    const body = fields && transport.body(fields);
    for (let attempt = 0; ; attempt += 1) {
      const url = `${base}${transport.path(path, body !== undefined)}`;
      const nonce = options.signingKeys ? newNonce() : undefined;
      const sent: Record<string, string> = body ? { ...headers, 'content-type': 'application/json' } : { ...headers };
      if (nonce !== undefined) sent['signature-nonce'] = nonce;
      const response = await fetchFn(url, {
        method,
        headers: sent,
        ...(body && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (options.signingKeys) {
        await verifyAnswer({
          keys: options.signingKeys,
          method,
          url,
          nonce,
          status: response.status,
          headers: response.headers,
          body: text,
        });
      }
      let parsed: Body | undefined;
      try {
        const value: unknown = JSON.parse(text);
        if (value !== null && typeof value === 'object' && !Array.isArray(value))
          parsed = value as Record<string, unknown>;
      } catch {
        parsed = undefined;
      }
      const wait = retryAfterSeconds(response.headers.get('retry-after'));
      const retriable = response.status === 429 || response.status === 503;
      if (retriable && attempt < retries && (wait ?? 2 ** attempt) <= maxWait) {
        await sleep(wait ?? 2 ** attempt);
        continue;
      }
      if ((response.status === 200 || response.status === 201) && parsed) {
        return response.status === 201 ? { ...parsed, [CREATED]: true } : parsed;
      }
      const status = typeof parsed?.status === 'string' ? parsed.status : '';
      const msg = typeof parsed?.msg === 'string' ? parsed.msg : text.slice(0, 200);
      throw new MarketplaceApiError(response.status, status, msg, wait);
    }
  }

  /** The answer, or `none` for a 404 with one of the given messages (another 404, such as a wrong base URL, throws). */
  async function orNone(request: Promise<Body>, messages: readonly string[]): Promise<Body | null> {
    try {
      return await request;
    } catch (error) {
      if (error instanceof MarketplaceApiError && error.httpStatus === 404 && messages.includes(error.msg)) return null;
      throw error;
    }
  }

  return { send, orNone };
}

function createContractClient(options: ClientOptions): MarketplaceClient {
  const { send, orNone } = createSender(options, {
    headers: { 'x-api-key': options.apiKey, accept: 'application/json' },
    path: (path) => path,
    body: (fields) => fields,
  });
  return {
    async account() {
      return (await send('GET', '/api/account/details')).data as Account;
    },
    async items() {
      const body = await orNone(send('GET', '/api/items/all'), NO_ITEMS_MESSAGES);
      return body ? (body.items as Item[]) : [];
    },
    async item(id) {
      const path = `/api/items/item?item_id=${encodeURIComponent(String(id))}`;
      const body = await orNone(send('GET', path), ITEM_NOT_FOUND_MESSAGES);
      return body ? (body.item as Item) : null;
    },
    async validatePurchase(code) {
      const request = send('POST', '/api/purchases/validation', { purchase_code: code });
      const body = await orNone(request, INVALID_PURCHASE_CODE_MESSAGES);
      return body ? (body.data as { purchase: Purchase }).purchase : null;
    },
    async purchaseActivity(code) {
      const path = `/api/purchases/activity?purchase_code=${encodeURIComponent(code)}`;
      const body = await orNone(send('GET', path), INVALID_PURCHASE_CODE_MESSAGES);
      return body ? (body.data as { activity: PurchaseActivity }).activity : null;
    },
    async topPurchaseActivity(options = {}) {
      const query = [
        ...(options.days === undefined ? [] : [`days=${encodeURIComponent(String(options.days))}`]),
        ...(options.limit === undefined ? [] : [`limit=${encodeURIComponent(String(options.limit))}`]),
      ].join('&');
      const body = await send('GET', `/api/purchases/activity/top${query && `?${query}`}`);
      return (body.data as { codes: ActiveCode[] }).codes;
    },
    async activate(code, instance) {
      const request = send('POST', '/api/purchases/activations', { purchase_code: code, instance });
      let body: Body | null;
      try {
        body = await orNone(request, INVALID_PURCHASE_CODE_MESSAGES);
      } catch (error) {
        // The one 409 of this endpoint: the code holds as many instances as its item allows.
        if (error instanceof MarketplaceApiError && error.httpStatus === 409) return { kind: 'limit_reached' };
        throw error;
      }
      if (body === null) return null;
      const data = body.data as { activation: Activation; activations: ActivationCounts; purchase: Purchase };
      return { kind: body[CREATED] === true ? 'created' : 'existing', ...data };
    },
    async deactivate(code, instance) {
      const request = send('POST', '/api/purchases/deactivation', { purchase_code: code, instance });
      const body = await orNone(request, [...INVALID_PURCHASE_CODE_MESSAGES, ...ACTIVATION_NOT_FOUND_MESSAGES]);
      return body ? (body.data as { activations: ActivationCounts }).activations : null;
    },
    async license(code, instance) {
      const fields: Record<string, string> = { purchase_code: code };
      if (instance !== undefined) fields.instance = instance;
      const body = await orNone(send('POST', '/api/purchases/license', fields), INVALID_PURCHASE_CODE_MESSAGES);
      return body ? (body.data as License) : null;
    },
  };
}

function createMarketbobClient(options: MarketbobClientOptions): MarketbobClient {
  const key = encodeURIComponent(options.apiKey);
  const { send, orNone } = createSender(options, {
    headers: { accept: 'application/json' },
    // A GET has no body to carry it: the key goes in the query string there.
    path: (path, withBody) => (withBody ? path : `${path}${path.includes('?') ? '&' : '?'}api_key=${key}`),
    body: (fields) => ({ api_key: options.apiKey, ...fields }),
  });
  return {
    async account() {
      return (await send('GET', '/api/account/details')).data as MarketbobAccount;
    },
    async items() {
      const body = await orNone(send('GET', '/api/items/all'), MARKETBOB_NO_ITEMS_MESSAGES);
      return body ? (body.items as MarketbobItem[]) : [];
    },
    async item(id) {
      const path = `/api/items/item?item_id=${encodeURIComponent(String(id))}`;
      const body = await orNone(send('GET', path), MARKETBOB_ITEM_NOT_FOUND_MESSAGES);
      return body ? (body.item as MarketbobItem) : null;
    },
    async validatePurchase(code) {
      const request = send('POST', '/api/purchases/validation', { purchase_code: code });
      const body = await orNone(request, MARKETBOB_INVALID_PURCHASE_CODE_MESSAGES);
      return body ? (body.item as MarketbobPurchase) : null;
    },
  };
}

/**
 * The marketplace's public keys, from `{baseUrl}/.well-known/jwks.json`. Fetch them from a server
 * you trust (over HTTPS, once, or ship them with your software): keys fetched from whatever server
 * the software is pointed at would trust that server.
 */
export async function fetchSigningKeys(baseUrl: string, fetch?: FetchLike): Promise<SigningKeySet> {
  const fetchFn = fetch ?? (globalThis as unknown as { fetch?: FetchLike }).fetch;
  if (!fetchFn) throw new TypeError('fetchSigningKeys: no fetch function (Node 18+ has one; or pass one)');
  const response = await fetchFn(`${baseUrl.replace(/\/+$/, '')}/.well-known/jwks.json`, {
    method: 'GET',
    headers: { accept: 'application/json' },
  });
  const text = await response.text();
  if (response.status !== 200) throw new MarketplaceApiError(response.status, '', text.slice(0, 200));
  return JSON.parse(text) as SigningKeySet;
}

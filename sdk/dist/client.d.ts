import { type Account, type Activation, type ActivationCounts, type ActiveCode, type Item, type MarketbobAccount, type MarketbobItem, type MarketbobPurchase, type Purchase, type PurchaseActivity } from './contract.js';
import { type SigningKeySet } from './signatures.js';
/** The part of a fetch Response the client reads (so the types need neither DOM nor Node typings). */
export interface FetchResponse {
    readonly status: number;
    readonly headers: {
        get(name: string): string | null;
    };
    text(): Promise<string>;
}
/** A fetch function: the global one by default. */
export type FetchLike = (url: string, init: {
    method: string;
    headers: Record<string, string>;
    body?: string;
}) => Promise<FetchResponse>;
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
export declare class MarketplaceApiError extends Error {
    /** The HTTP status code, such as 401. */
    readonly httpStatus: number;
    /** The answer's `status` word, such as "error" or "Erro" ('' when the answer was not the API's JSON). */
    readonly status: string;
    /** The answer's `msg`. */
    readonly msg: string;
    /** Seconds the answer asked to wait (its `Retry-After` header), when it said. */
    readonly retryAfter?: number | undefined;
    readonly name = "MarketplaceApiError";
    constructor(
    /** The HTTP status code, such as 401. */
    httpStatus: number, 
    /** The answer's `status` word, such as "error" or "Erro" ('' when the answer was not the API's JSON). */
    status: string, 
    /** The answer's `msg`. */
    msg: string, 
    /** Seconds the answer asked to wait (its `Retry-After` header), when it said. */
    retryAfter?: number | undefined);
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
export type ActivationOutcome = {
    readonly kind: 'created' | 'existing';
    readonly activation: Activation;
    readonly activations: ActivationCounts;
    readonly purchase: Purchase;
} | {
    readonly kind: 'limit_reached';
};
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
/** A client of the contract's API; with `shape: 'marketbob'`, of a server in MarketBob's shape. */
export declare function createClient(options: MarketbobClientOptions): MarketbobClient;
export declare function createClient(options: ClientOptions): MarketplaceClient;
export declare function createClient(options: ClientOptions | MarketbobClientOptions): MarketplaceClient | MarketbobClient;
/**
 * The marketplace's public keys, from `{baseUrl}/.well-known/jwks.json`. Fetch them from a server
 * you trust (over HTTPS, once, or ship them with your software): keys fetched from whatever server
 * the software is pointed at would trust that server.
 */
export declare function fetchSigningKeys(baseUrl: string, fetch?: FetchLike): Promise<SigningKeySet>;

"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MarketplaceApiError = void 0;
exports.createClient = createClient;
exports.fetchSigningKeys = fetchSigningKeys;
const contract_js_1 = require("./contract.js");
const signatures_js_1 = require("./signatures.js");
/** Every error answer but the "none" ones, as one class: the HTTP status, the `status` word and `msg`. */
class MarketplaceApiError extends Error {
    httpStatus;
    status;
    msg;
    retryAfter;
    name = 'MarketplaceApiError';
    constructor(
    /** The HTTP status code, such as 401. */
    httpStatus, 
    /** The answer's `status` word, such as "error" or "Erro" ('' when the answer was not the API's JSON). */
    status, 
    /** The answer's `msg`. */
    msg, 
    /** Seconds the answer asked to wait (its `Retry-After` header), when it said. */
    retryAfter) {
        super(`${httpStatus} ${msg}`);
        this.httpStatus = httpStatus;
        this.status = status;
        this.msg = msg;
        this.retryAfter = retryAfter;
    }
}
exports.MarketplaceApiError = MarketplaceApiError;
const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
/** Seconds from a Retry-After header: delta-seconds or an HTTP date. */
function retryAfterSeconds(header) {
    if (header === null || header.trim() === '')
        return undefined;
    const text = header.trim();
    if (/^\d+$/.test(text))
        return Number(text);
    const date = Date.parse(text);
    return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
/** Marks a body that came with 201 (an activation made). */
const CREATED = Symbol('created');
/** A fresh nonce per request: 16 random bytes, hex. */
function newNonce() {
    const random = globalThis.crypto;
    const bytes = new Uint8Array(16);
    if (random)
        random.getRandomValues(bytes);
    else
        for (let at = 0; at < bytes.length; at++)
            bytes[at] = Math.floor(Math.random() * 256);
    return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
function createClient(options) {
    return options.shape === 'marketbob' ? createMarketbobClient(options) : createContractClient(options);
}
/** Sends requests: the success answer's body, or a MarketplaceApiError (after the retries asked for). */
function createSender(options, transport) {
    const base = options.baseUrl.replace(/\/+$/, '');
    const globalFetch = globalThis.fetch;
    if (!options.fetch && !globalFetch) {
        throw new TypeError('createClient: no fetch function (Node 18+ has one; or pass options.fetch)');
    }
    const fetchFn = (options.fetch ?? globalFetch);
    const retry = options.retry === true ? {} : options.retry || undefined;
    const retries = retry ? (retry.retries ?? 2) : 0;
    const maxWait = retry?.maxWaitSeconds ?? 60;
    const { headers } = transport;
    /** A success answer's body; any other answer thrown as a MarketplaceApiError. */
    async function send(method, path, fields) {
        const body = fields && transport.body(fields);
        for (let attempt = 0;; attempt += 1) {
            const url = `${base}${transport.path(path, body !== undefined)}`;
            const nonce = options.signingKeys ? newNonce() : undefined;
            const sent = body ? { ...headers, 'content-type': 'application/json' } : { ...headers };
            if (nonce !== undefined)
                sent['signature-nonce'] = nonce;
            const response = await fetchFn(url, {
                method,
                headers: sent,
                ...(body && { body: JSON.stringify(body) }),
            });
            const text = await response.text();
            if (options.signingKeys) {
                await (0, signatures_js_1.verifyAnswer)({
                    keys: options.signingKeys,
                    method,
                    url,
                    nonce,
                    status: response.status,
                    headers: response.headers,
                    body: text,
                });
            }
            let parsed;
            try {
                const value = JSON.parse(text);
                if (value !== null && typeof value === 'object' && !Array.isArray(value))
                    parsed = value;
            }
            catch {
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
    async function orNone(request, messages) {
        try {
            return await request;
        }
        catch (error) {
            if (error instanceof MarketplaceApiError && error.httpStatus === 404 && messages.includes(error.msg))
                return null;
            throw error;
        }
    }
    return { send, orNone };
}
function createContractClient(options) {
    const { send, orNone } = createSender(options, {
        headers: { 'x-api-key': options.apiKey, accept: 'application/json' },
        path: (path) => path,
        body: (fields) => fields,
    });
    return {
        async account() {
            return (await send('GET', '/api/account/details')).data;
        },
        async items() {
            const body = await orNone(send('GET', '/api/items/all'), contract_js_1.NO_ITEMS_MESSAGES);
            return body ? body.items : [];
        },
        async item(id) {
            const path = `/api/items/item?item_id=${encodeURIComponent(String(id))}`;
            const body = await orNone(send('GET', path), contract_js_1.ITEM_NOT_FOUND_MESSAGES);
            return body ? body.item : null;
        },
        async validatePurchase(code) {
            const request = send('POST', '/api/purchases/validation', { purchase_code: code });
            const body = await orNone(request, contract_js_1.INVALID_PURCHASE_CODE_MESSAGES);
            return body ? body.data.purchase : null;
        },
        async purchaseActivity(code) {
            const path = `/api/purchases/activity?purchase_code=${encodeURIComponent(code)}`;
            const body = await orNone(send('GET', path), contract_js_1.INVALID_PURCHASE_CODE_MESSAGES);
            return body ? body.data.activity : null;
        },
        async topPurchaseActivity(options = {}) {
            const query = [
                ...(options.days === undefined ? [] : [`days=${encodeURIComponent(String(options.days))}`]),
                ...(options.limit === undefined ? [] : [`limit=${encodeURIComponent(String(options.limit))}`]),
            ].join('&');
            const body = await send('GET', `/api/purchases/activity/top${query && `?${query}`}`);
            return body.data.codes;
        },
        async activate(code, instance) {
            const request = send('POST', '/api/purchases/activations', { purchase_code: code, instance });
            let body;
            try {
                body = await orNone(request, contract_js_1.INVALID_PURCHASE_CODE_MESSAGES);
            }
            catch (error) {
                // The one 409 of this endpoint: the code holds as many instances as its item allows.
                if (error instanceof MarketplaceApiError && error.httpStatus === 409)
                    return { kind: 'limit_reached' };
                throw error;
            }
            if (body === null)
                return null;
            const data = body.data;
            return { kind: body[CREATED] === true ? 'created' : 'existing', ...data };
        },
        async deactivate(code, instance) {
            const request = send('POST', '/api/purchases/deactivation', { purchase_code: code, instance });
            const body = await orNone(request, [...contract_js_1.INVALID_PURCHASE_CODE_MESSAGES, ...contract_js_1.ACTIVATION_NOT_FOUND_MESSAGES]);
            return body ? body.data.activations : null;
        },
        async license(code, instance) {
            const fields = { purchase_code: code };
            if (instance !== undefined)
                fields.instance = instance;
            const body = await orNone(send('POST', '/api/purchases/license', fields), contract_js_1.INVALID_PURCHASE_CODE_MESSAGES);
            return body ? body.data : null;
        },
    };
}
function createMarketbobClient(options) {
    const key = encodeURIComponent(options.apiKey);
    const { send, orNone } = createSender(options, {
        headers: { accept: 'application/json' },
        // A GET has no body to carry it: the key goes in the query string there.
        path: (path, withBody) => (withBody ? path : `${path}${path.includes('?') ? '&' : '?'}api_key=${key}`),
        body: (fields) => ({ api_key: options.apiKey, ...fields }),
    });
    return {
        async account() {
            return (await send('GET', '/api/account/details')).data;
        },
        async items() {
            const body = await orNone(send('GET', '/api/items/all'), contract_js_1.MARKETBOB_NO_ITEMS_MESSAGES);
            return body ? body.items : [];
        },
        async item(id) {
            const path = `/api/items/item?item_id=${encodeURIComponent(String(id))}`;
            const body = await orNone(send('GET', path), contract_js_1.MARKETBOB_ITEM_NOT_FOUND_MESSAGES);
            return body ? body.item : null;
        },
        async validatePurchase(code) {
            const request = send('POST', '/api/purchases/validation', { purchase_code: code });
            const body = await orNone(request, contract_js_1.MARKETBOB_INVALID_PURCHASE_CODE_MESSAGES);
            return body ? body.item : null;
        },
    };
}
/**
 * The marketplace's public keys, from `{baseUrl}/.well-known/jwks.json`. Fetch them from a server
 * you trust (over HTTPS, once, or ship them with your software): keys fetched from whatever server
 * the software is pointed at would trust that server.
 */
async function fetchSigningKeys(baseUrl, fetch) {
    const fetchFn = fetch ?? globalThis.fetch;
    if (!fetchFn)
        throw new TypeError('fetchSigningKeys: no fetch function (Node 18+ has one; or pass one)');
    const response = await fetchFn(`${baseUrl.replace(/\/+$/, '')}/.well-known/jwks.json`, {
        method: 'GET',
        headers: { accept: 'application/json' },
    });
    const text = await response.text();
    if (response.status !== 200)
        throw new MarketplaceApiError(response.status, '', text.slice(0, 200));
    return JSON.parse(text);
}

"use strict";
/**
 * Checks what the marketplace signs, so that software that believes an answer cannot be fooled by
 * a server that only pretends to be it: answers (RFC 9421 HTTP Message Signatures, Ed25519, with
 * an RFC 9530 `Content-Digest`) and offline license tokens (JWS, EdDSA). The keys are the
 * deployment's, published at `{base}/.well-known/jwks.json`. Web Crypto only, so it runs wherever
 * the client does.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.SignatureVerificationError = void 0;
exports.verifyAnswer = verifyAnswer;
exports.verifyLicense = verifyLicense;
const web_crypto_js_1 = require("./web-crypto.js");
/** An answer or a token that must not be believed: say why. */
class SignatureVerificationError extends Error {
    constructor(message) {
        super(message);
        this.name = 'SignatureVerificationError';
    }
}
exports.SignatureVerificationError = SignatureVerificationError;
const base64 = globalThis;
const { TextEncoder: Encoder, TextDecoder: Decoder } = globalThis;
const encoder = new Encoder();
const decoder = new Decoder();
function fromBase64(text) {
    const binary = base64.atob(text);
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
function fromBase64url(text) {
    if (!/^[A-Za-z0-9_-]*$/.test(text))
        throw new SignatureVerificationError('malformed base64url');
    const padded = text.replace(/-/g, '+').replace(/_/g, '/');
    return fromBase64(padded + '='.repeat((4 - (padded.length % 4)) % 4));
}
function toBase64(bytes) {
    let binary = '';
    for (const byte of new Uint8Array(bytes))
        binary += String.fromCharCode(byte);
    return base64.btoa(binary);
}
function header(headers, name) {
    if (typeof headers.get === 'function') {
        return headers.get(name) ?? undefined;
    }
    const record = headers;
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
    const value = key === undefined ? undefined : record[key];
    return Array.isArray(value) ? value[0] : value === undefined ? undefined : String(value);
}
async function publicKey(keys, kid) {
    const jwk = keys.keys.find((candidate) => candidate.kid === kid);
    if (!jwk)
        throw new SignatureVerificationError(`no trusted key has the id ${JSON.stringify(kid)}`);
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519')
        throw new SignatureVerificationError('the key is not Ed25519');
    const crypto = await (0, web_crypto_js_1.subtle)();
    return crypto.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, false, ['verify']);
}
/** The components an answer's signature must cover, whatever else it covers. */
const REQUIRED = ['"@status"', '"content-digest"', '"@method";req', '"@path";req', '"@query";req'];
/**
 * Checks that an answer is the marketplace's own, to this very request: its body matches
 * `Content-Digest`, and the signature (by a trusted key, made within `maxAgeSeconds`) covers its
 * status, that digest, the request's method, path and query, and the nonce when one was sent.
 * Resolves when it is; throws SignatureVerificationError otherwise.
 */
async function verifyAnswer(input) {
    const digest = header(input.headers, 'content-digest');
    const signatureInput = header(input.headers, 'signature-input');
    const signatureHeader = header(input.headers, 'signature');
    if (!digest || !signatureInput || !signatureHeader) {
        throw new SignatureVerificationError('the answer is not signed (no Content-Digest, Signature-Input or Signature)');
    }
    const crypto = await (0, web_crypto_js_1.subtle)();
    const bytes = typeof input.body === 'string' ? encoder.encode(input.body) : input.body;
    const expectedDigest = `sha-256=:${toBase64(await crypto.digest('SHA-256', bytes))}:`;
    if (digest !== expectedDigest)
        throw new SignatureVerificationError('the body does not match Content-Digest');
    const parsed = /^([a-z][a-z0-9_.*-]*)=(\(([^)]*)\)(.*))$/.exec(signatureInput.trim());
    if (!parsed)
        throw new SignatureVerificationError('malformed Signature-Input');
    const [, label, params, inner, paramText] = parsed;
    const components = inner.split(' ').filter((part) => part !== '');
    const parameters = new Map();
    for (const match of paramText.matchAll(/;([a-z]+)=("(?:[^"\\]|\\.)*"|\d+)/g)) {
        const raw = match[2];
        parameters.set(match[1], raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw);
    }
    const required = input.nonce === undefined ? REQUIRED : [...REQUIRED, '"signature-nonce";req'];
    for (const component of required) {
        if (!components.includes(component))
            throw new SignatureVerificationError(`the signature does not cover ${component}`);
    }
    if (parameters.get('alg') !== 'ed25519')
        throw new SignatureVerificationError('the signature is not ed25519');
    if (input.nonce !== undefined && parameters.get('nonce') !== input.nonce) {
        throw new SignatureVerificationError('the answer is not to this request (another nonce)');
    }
    const created = Number(parameters.get('created'));
    const now = (input.now ?? Date.now()) / 1000;
    if (!Number.isSafeInteger(created) || Math.abs(now - created) > (input.maxAgeSeconds ?? 300)) {
        throw new SignatureVerificationError('the signature is too old, or from the future');
    }
    // An absolute URL's path and query: what follows its authority (fetch sends it as written here).
    const pathAndQuery = input.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/#.*$/, '') || '/';
    const queryAt = pathAndQuery.indexOf('?');
    const values = {
        '"@status"': String(input.status),
        '"content-digest"': digest,
        '"@method";req': input.method.toUpperCase(),
        '"@path";req': queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt),
        '"@query";req': queryAt === -1 ? '?' : pathAndQuery.slice(queryAt),
    };
    if (input.nonce !== undefined)
        values['"signature-nonce";req'] = input.nonce;
    const lines = components.map((component) => {
        const value = values[component];
        if (value === undefined)
            throw new SignatureVerificationError(`cannot check the covered ${component}`);
        return `${component}: ${value}`;
    });
    lines.push(`"@signature-params": ${params}`);
    const signature = new RegExp(`(?:^|,)\\s*${label}=:([A-Za-z0-9+/=]+):`).exec(signatureHeader);
    if (!signature)
        throw new SignatureVerificationError('no signature under the label of Signature-Input');
    const key = await publicKey(input.keys, parameters.get('keyid'));
    const ok = await crypto.verify({ name: 'Ed25519' }, key, fromBase64(signature[1]), encoder.encode(lines.join('\n')));
    if (!ok)
        throw new SignatureVerificationError('the signature does not verify');
}
/**
 * Checks an offline license token (as `license()` gets it) with the trusted keys, offline: its
 * signature, that it has not expired, and, when asked, its issuer and instance. Returns its claims;
 * throws SignatureVerificationError otherwise.
 */
async function verifyLicense(token, options) {
    const parts = token.split('.');
    if (parts.length !== 3)
        throw new SignatureVerificationError('not a JWS compact token');
    const [head, body, signature] = parts;
    let protectedHeader;
    let claims;
    try {
        protectedHeader = JSON.parse(decoder.decode(fromBase64url(head)));
        claims = JSON.parse(decoder.decode(fromBase64url(body)));
    }
    catch {
        throw new SignatureVerificationError('the token is not readable');
    }
    if (protectedHeader.alg !== 'EdDSA')
        throw new SignatureVerificationError('the token is not EdDSA');
    const key = await publicKey(options.keys, protectedHeader.kid);
    const crypto = await (0, web_crypto_js_1.subtle)();
    const ok = await crypto.verify({ name: 'Ed25519' }, key, fromBase64url(signature), encoder.encode(`${head}.${body}`));
    if (!ok)
        throw new SignatureVerificationError('the token signature does not verify');
    const now = (options.now ?? Date.now()) / 1000;
    if (typeof claims.exp !== 'number' || now >= claims.exp)
        throw new SignatureVerificationError('the token has expired');
    if (options.issuer !== undefined && claims.iss !== options.issuer) {
        throw new SignatureVerificationError('the token is from another issuer');
    }
    if (options.instance !== undefined && claims.instance !== options.instance) {
        throw new SignatureVerificationError('the token is for another instance');
    }
    return claims;
}

import { isActivationInstance } from '../domain/activation-instance.js';
import type { VariantTexts } from '../variants/variant-texts.js';
import { ApiError, type OrRefusal } from './api-error.js';
import type { ApiRequest } from './api-request.js';

/**
 * Parameters as SPEC 2.1 and 2.2.1 say: from every transport, trimmed, empty counting as
 * missing, and one value only (the same value sent twice is fine; two different values are not).
 */

type Sources = readonly unknown[];

const MISSING = Symbol('missing');
const MALFORMED = Symbol('malformed');

/** One transport's value for a parameter, normalised: a trimmed non-empty string, missing, or malformed. */
function normalise(value: unknown): string | typeof MISSING | typeof MALFORMED {
  if (value === undefined || value === null) return MISSING;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? MISSING : trimmed;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return MALFORMED;
}

/** What a parameter's values, read so far, come to: none yet, one value, two different ones, or a malformed one's refusal. */
const CONFLICTING = Symbol('conflicting');
type Found = string | undefined | typeof CONFLICTING | ApiError;

/**
 * `found` with one transport's raw value read in (an array counts as several sends). Folded one
 * value at a time, not gathered in a set: this runs for every parameter of every request.
 */
function readIn(found: Found, raw: unknown, name: string, texts: VariantTexts): Found {
  if (!Array.isArray(raw)) return readOne(found, raw, name, texts);
  let result = found;
  for (const item of raw) result = readOne(result, item, name, texts);
  return result;
}

function readOne(found: Found, raw: unknown, name: string, texts: VariantTexts): Found {
  // A malformed value anywhere is reported before two different values are.
  if (found instanceof ApiError) return found;
  const value = normalise(raw);
  if (value === MALFORMED)
    return new ApiError('badParameter', texts.parameter.malformed(name, texts.expectations.text));
  if (value === MISSING || value === found) return found;
  return found === undefined ? value : CONFLICTING;
}

/** A transport's (query string's or body's) field, when it has fields at all. */
function fieldOf(source: unknown, name: string): unknown {
  return source !== null && typeof source === 'object' ? (source as Record<string, unknown>)[name] : undefined;
}

function settle(found: Found, name: string, texts: VariantTexts): OrRefusal<string | undefined> {
  return found === CONFLICTING ? new ApiError('badParameter', texts.parameter.conflicting(name)) : found;
}

/**
 * The parameter's single value, or undefined when missing everywhere; the 400 refusal when given
 * two different values or one that is no text. Every reader here returns its refusal: a handler
 * passes it on (see Endpoint).
 */
export function optionalParam(name: string, sources: Sources, texts: VariantTexts): OrRefusal<string | undefined> {
  let found: Found;
  for (const source of sources) found = readIn(found, fieldOf(source, name), name, texts);
  return settle(found, name, texts);
}

function required(value: OrRefusal<string | undefined>, name: string, texts: VariantTexts): OrRefusal<string> {
  return value === undefined ? new ApiError('badParameter', texts.parameter.missing(name)) : value;
}

export function requiredParam(name: string, sources: Sources, texts: VariantTexts): OrRefusal<string> {
  return required(optionalParam(name, sources, texts), name, texts);
}

const BEARER = /^Bearer\s+(.*)$/i;

/** The key from `X-Api-Key`, `Authorization: Bearer`, the query string or the body. */
export function apiKeyParam(request: ApiRequest, body: unknown, texts: VariantTexts): OrRefusal<string> {
  const { authorization } = request.headers;
  let found = readIn(undefined, request.headers['x-api-key'], 'api_key', texts);
  if (authorization !== undefined) found = readIn(found, BEARER.exec(authorization)?.[1], 'api_key', texts);
  found = readIn(found, fieldOf(request.query, 'api_key'), 'api_key', texts);
  found = readIn(found, fieldOf(body, 'api_key'), 'api_key', texts);
  return required(settle(found, 'api_key', texts), 'api_key', texts);
}

const ITEM_ID = /^\d{1,15}$/;

/** `item_id`: digits only (at most 15), value at least 1; `007` is item 7. */
export function itemIdParam(sources: Sources, texts: VariantTexts): OrRefusal<number> {
  const text = requiredParam('item_id', sources, texts);
  if (text instanceof ApiError) return text;
  const id = ITEM_ID.test(text) ? Number(text) : 0;
  return id < 1
    ? new ApiError('badParameter', texts.parameter.malformed('item_id', texts.expectations.positiveInteger))
    : id;
}

/** An activation's `instance` (1 to 255 characters, no control characters); undefined when missing and not `required`. */
export function instanceParam(sources: Sources, texts: VariantTexts, required: true): OrRefusal<string>;
export function instanceParam(sources: Sources, texts: VariantTexts, required: false): OrRefusal<string | undefined>;
export function instanceParam(sources: Sources, texts: VariantTexts, required: boolean): OrRefusal<string | undefined> {
  const text = required ? requiredParam('instance', sources, texts) : optionalParam('instance', sources, texts);
  if (typeof text === 'string' && !isActivationInstance(text)) {
    return new ApiError('badParameter', texts.parameter.malformed('instance', texts.expectations.instance));
  }
  return text;
}

const WHOLE_NUMBER = /^\d{1,9}$/;

/** An optional whole number within the parameter's `range` (digits only), `fallback` when missing; 400 otherwise. */
export function wholeNumberParam(
  param: { readonly name: string; readonly range: { readonly min: number; readonly max: number } },
  sources: Sources,
  fallback: number,
  texts: VariantTexts,
): OrRefusal<number> {
  const { name, range } = param;
  const text = optionalParam(name, sources, texts);
  if (text === undefined) return fallback;
  if (text instanceof ApiError) return text;
  const value = WHOLE_NUMBER.test(text) ? Number(text) : Number.NaN;
  if (!(value >= range.min && value <= range.max)) {
    return new ApiError(
      'badParameter',
      texts.parameter.malformed(name, texts.expectations.wholeNumber(range.min, range.max)),
    );
  }
  return value;
}

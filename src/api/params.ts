import { isActivationInstance } from '../domain/activation-instance.js';
import type { VariantTexts } from '../variants/variant-texts.js';
import { ApiError } from './api-error.js';
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

/** What a parameter's values, read so far, come to: none yet, one value, or two different ones. */
const CONFLICTING = Symbol('conflicting');
type Found = string | undefined | typeof CONFLICTING;

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
  const value = normalise(raw);
  if (value === MALFORMED) throw new ApiError('badParameter', texts.parameter.malformed(name, texts.expectations.text));
  if (value === MISSING || value === found) return found;
  return found === undefined ? value : CONFLICTING;
}

/** A transport's (query string's or body's) field, when it has fields at all. */
function fieldOf(source: unknown, name: string): unknown {
  return source !== null && typeof source === 'object' ? (source as Record<string, unknown>)[name] : undefined;
}

/** A malformed value anywhere is reported before two different values are. */
function settle(found: Found, name: string, texts: VariantTexts): string | undefined {
  if (found === CONFLICTING) throw new ApiError('badParameter', texts.parameter.conflicting(name));
  return found;
}

/** The parameter's single value, or undefined when missing everywhere; 400 when given two different values. */
export function optionalParam(name: string, sources: Sources, texts: VariantTexts): string | undefined {
  let found: Found;
  for (const source of sources) found = readIn(found, fieldOf(source, name), name, texts);
  return settle(found, name, texts);
}

function required(value: string | undefined, name: string, texts: VariantTexts): string {
  if (value === undefined) throw new ApiError('badParameter', texts.parameter.missing(name));
  return value;
}

export function requiredParam(name: string, sources: Sources, texts: VariantTexts): string {
  return required(optionalParam(name, sources, texts), name, texts);
}

const BEARER = /^Bearer\s+(.*)$/i;

/** The key from `X-Api-Key`, `Authorization: Bearer`, the query string or the body. */
export function apiKeyParam(request: ApiRequest, body: unknown, texts: VariantTexts): string {
  const { authorization } = request.headers;
  let found = readIn(undefined, request.headers['x-api-key'], 'api_key', texts);
  if (authorization !== undefined) found = readIn(found, BEARER.exec(authorization)?.[1], 'api_key', texts);
  found = readIn(found, fieldOf(request.query, 'api_key'), 'api_key', texts);
  found = readIn(found, fieldOf(body, 'api_key'), 'api_key', texts);
  return required(settle(found, 'api_key', texts), 'api_key', texts);
}

const ITEM_ID = /^\d{1,15}$/;

/** `item_id`: digits only (at most 15), value at least 1; `007` is item 7. */
export function itemIdParam(sources: Sources, texts: VariantTexts): number {
  const text = requiredParam('item_id', sources, texts);
  const id = ITEM_ID.test(text) ? Number(text) : 0;
  if (id < 1)
    throw new ApiError('badParameter', texts.parameter.malformed('item_id', texts.expectations.positiveInteger));
  return id;
}

/** An activation's `instance` (1 to 255 characters, no control characters); undefined when missing and not `required`. */
export function instanceParam(sources: Sources, texts: VariantTexts, required: true): string;
export function instanceParam(sources: Sources, texts: VariantTexts, required: false): string | undefined;
export function instanceParam(sources: Sources, texts: VariantTexts, required: boolean): string | undefined {
  const text = required ? requiredParam('instance', sources, texts) : optionalParam('instance', sources, texts);
  if (text !== undefined && !isActivationInstance(text)) {
    throw new ApiError('badParameter', texts.parameter.malformed('instance', texts.expectations.instance));
  }
  return text;
}

const WHOLE_NUMBER = /^\d{1,9}$/;

/** An optional whole number from `min` to `max` (digits only), `fallback` when missing; 400 otherwise. */
export function wholeNumberParam(
  name: string,
  sources: Sources,
  bounds: { readonly min: number; readonly max: number; readonly fallback: number },
  texts: VariantTexts,
): number {
  const text = optionalParam(name, sources, texts);
  if (text === undefined) return bounds.fallback;
  const value = WHOLE_NUMBER.test(text) ? Number(text) : Number.NaN;
  if (!(value >= bounds.min && value <= bounds.max)) {
    throw new ApiError(
      'badParameter',
      texts.parameter.malformed(name, texts.expectations.wholeNumber(bounds.min, bounds.max)),
    );
  }
  return value;
}

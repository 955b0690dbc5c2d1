import type { FastifyRequest } from 'fastify';
import type { VariantTexts } from '../variants/variant-texts.js';
import { ApiError } from './api-error.js';

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

/** Every distinct value a parameter was given, over all sources (arrays count as several sends). */
function collect(name: string, sources: Sources, texts: VariantTexts): string[] {
  const values = new Set<string>();
  for (const source of sources) {
    if (source === undefined || source === null || typeof source !== 'object') continue;
    const raw = (source as Record<string, unknown>)[name];
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      const value = normalise(item);
      if (value === MALFORMED)
        throw new ApiError('badParameter', texts.parameter.malformed(name, texts.expectations.text));
      if (value !== MISSING) values.add(value);
    }
  }
  return [...values];
}

/** The parameter's single value, or undefined when missing everywhere; 400 when given two different values. */
export function optionalParam(name: string, sources: Sources, texts: VariantTexts): string | undefined {
  const values = collect(name, sources, texts);
  if (values.length > 1) throw new ApiError('badParameter', texts.parameter.conflicting(name));
  return values[0];
}

export function requiredParam(name: string, sources: Sources, texts: VariantTexts): string {
  const value = optionalParam(name, sources, texts);
  if (value === undefined) throw new ApiError('badParameter', texts.parameter.missing(name));
  return value;
}

const BEARER = /^Bearer\s+(.*)$/i;

/** The key from `X-Api-Key`, `Authorization: Bearer`, the query string or the body. */
export function apiKeyParam(request: FastifyRequest, body: unknown, texts: VariantTexts): string {
  const headerKey = request.headers['x-api-key'];
  const bearer = BEARER.exec(request.headers.authorization ?? '')?.[1];
  return requiredParam('api_key', [{ api_key: headerKey }, { api_key: bearer }, request.query, body], texts);
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

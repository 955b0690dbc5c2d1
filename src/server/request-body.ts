import type { IncomingMessage } from 'node:http';
import { parse as parseForm } from 'fast-querystring';
import secureJsonParse from 'secure-json-parse';
import type { BodyOutcome } from './body-outcome.js';
import { readMultipart } from './multipart-body.js';

const NO_BODY: BodyOutcome = { body: undefined };
/** A `__proto__` or `constructor.prototype` key is a malformed body, not a way into our objects. */
const JSON_PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

type BodyKind = 'json' | 'form' | 'multipart';
const KINDS: ReadonlyMap<string, BodyKind> = new Map([
  ['application/json', 'json'],
  ['application/x-www-form-urlencoded', 'form'],
  ['multipart/form-data', 'multipart'],
]);
/** The header values clients send most, known without parsing. */
const KNOWN = new Map<string, BodyKind>([
  ['application/json', 'json'],
  ['application/json; charset=utf-8', 'json'],
  ['application/x-www-form-urlencoded', 'form'],
]);

/** The body's kind by its media type (RFC 9110 8.3.1: type and subtype, case-insensitive), or undefined. */
export function bodyKindOf(contentType: string): BodyKind | undefined {
  const known = KNOWN.get(contentType);
  if (known !== undefined) return known;
  const semicolon = contentType.indexOf(';');
  // Only the three media types are looked up: anything malformed is none of them.
  return KINDS.get((semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase());
}

/**
 * Reads a POST body within `limit` bytes: JSON, form or multipart, nothing else (SPEC 2.1). No
 * content type and no body is no body; any other content type is a 415.
 */
export function readBody(req: IncomingMessage, limit: number, done: (outcome: BodyOutcome) => void): void {
  const { headers } = req;
  const contentType = headers['content-type'];
  if (contentType === undefined) {
    const length = headers['content-length'];
    if (headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) done(NO_BODY);
    else done({ error: 'unsupportedContentType' });
    return;
  }
  const kind = bodyKindOf(contentType);
  if (kind === undefined) {
    done({ error: 'unsupportedContentType' });
    return;
  }
  if (kind === 'multipart') {
    readMultipart(headers, req, limit, done);
    return;
  }
  readText(req, limit, (text) => {
    if (typeof text !== 'string') done(text);
    else if (kind === 'form') done({ body: parseForm(text) });
    else done(parseJson(text));
  });
}

function parseJson(text: string): BodyOutcome {
  if (text.length === 0) return { error: 'malformedRequest' };
  try {
    // A text with no escape and neither word cannot hold a `__proto__` or `constructor` key:
    // JSON.parse alone answers it, without secure-json-parse's two scans of every body.
    if (text.indexOf('\\') === -1 && !text.includes('__proto__') && !text.includes('constructor')) {
      return { body: JSON.parse(text) };
    }
    return { body: secureJsonParse.parse(text, undefined, JSON_PARSE_OPTIONS) };
  } catch {
    return { error: 'malformedRequest' };
  }
}

/**
 * The whole body as UTF-8 text, decoded once at the end; past `limit` bytes, a 413 without reading
 * on. Two listeners, no more: each costs its share of a request. No `error` listener: Node emits a
 * request's error only to listeners, and a client gone mid-body leaves nobody to answer (its
 * socket is closed already), so nothing is answered and the closure is let go.
 */
function readText(req: IncomingMessage, limit: number, done: (text: string | BodyOutcome) => void): void {
  let first: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let received = 0;
  req.on('data', (chunk: Buffer) => {
    if (received > limit) return;
    received += chunk.length;
    if (received > limit) {
      // Nothing more is kept: the door answers 413 and closes the connection.
      first = undefined;
      chunks = undefined;
      done({ error: 'bodyTooLarge' });
    } else if (first === undefined) {
      first = chunk;
    } else {
      if (chunks === undefined) chunks = [first];
      chunks.push(chunk);
    }
  });
  req.on('end', () => {
    if (received > limit) return;
    if (chunks !== undefined) done(Buffer.concat(chunks, received).toString('utf8'));
    else done(first === undefined ? '' : first.toString('utf8'));
  });
}

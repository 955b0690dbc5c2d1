import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { parse as parseQuery } from 'fast-querystring';

/** A POST body's fields, or undefined when it does not parse (the floor then has no answer). */
export type Fields = Record<string, unknown> | undefined;

/**
 * A JSON or urlencoded body's fields: `JSON.parse`, or fast-querystring as the real server's form
 * parser uses.
 */
export function textFields(kind: 'json' | 'form', body: string): Fields {
  if (kind === 'form') return parseQuery(body);
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A multipart body's fields, read with @fastify/busboy as the real server must: from the request, or from bytes. */
export function readMultipartFields(contentType: string, source: Readable | Buffer, done: (fields: Fields) => void) {
  let parser: ReturnType<typeof Busboy>;
  try {
    parser = Busboy({ headers: { 'content-type': contentType } });
  } catch {
    done(undefined);
    return;
  }
  const fields: Record<string, string> = Object.create(null);
  let settled = false;
  const settle = (result: Fields) => {
    // An error after the finish (or a second error) must not answer twice.
    if (settled) return;
    settled = true;
    done(result);
  };
  parser.on('field', (name, value) => {
    fields[name] = value;
  });
  parser.on('file', (_name, file) => file.resume());
  parser.on('finish', () => settle(fields));
  parser.on('error', () => settle(undefined));
  if (Buffer.isBuffer(source)) parser.end(source);
  else source.pipe(parser);
}

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../api/api-error.js';
import { BODY_LIMIT } from './body-limit.js';

/** What a multipart body gives the parameter reader: each field's value, or values when repeated. */
export type MultipartFields = Record<string, string | string[]>;

/**
 * `multipart/form-data` bodies as a content-type parser: fields only, each file part read to its
 * end and dropped (SPEC 2.1). A parser, not a plugin with a per-request hook, so that a JSON
 * request never pays for multipart support. Fastify's bodyLimit does not apply to a parser that
 * reads the stream itself, so the bytes are counted here: past BODY_LIMIT it answers 413, and the
 * byte count bounds the number of parts too.
 */
export function parseMultipart(
  request: FastifyRequest,
  payload: IncomingMessage,
  done: (error: Error | null, body?: MultipartFields) => void,
): void {
  let parser: BusboyInstance;
  try {
    parser = Busboy({
      headers: request.headers as IncomingHttpHeaders & { 'content-type': string },
      limits: { fieldSize: BODY_LIMIT, fileSize: BODY_LIMIT, fields: BODY_LIMIT, parts: BODY_LIMIT },
    });
  } catch {
    // No boundary, or not multipart at all after the media type.
    done(new ApiError('malformedRequest'));
    return;
  }
  // No prototype: a field named `__proto__` or `constructor` is just a field.
  const fields: MultipartFields = Object.create(null);
  let settled = false;
  let received = 0;
  const settle = (error: Error | null) => {
    if (settled) return;
    settled = true;
    payload.off('data', count);
    // The rest of a refused body is left unread; Node discards it once the answer is sent.
    payload.unpipe(parser);
    done(error, error ? undefined : fields);
  };
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > BODY_LIMIT) settle(new ApiError('bodyTooLarge'));
  };

  parser.on('field', (name, value) => {
    const earlier = fields[name];
    if (earlier === undefined) fields[name] = value;
    else if (Array.isArray(earlier)) earlier.push(value);
    else fields[name] = [earlier, value];
  });
  parser.on('file', (_name, file) => {
    // A body cut short inside a file part fails the file's stream as well as the parser: the
    // parser's error answers it, and a file stream's error with no listener would crash the process.
    file.on('error', () => undefined);
    file.resume();
  });
  parser.on('finish', () => settle(null));
  parser.on('error', () => settle(new ApiError('malformedRequest')));
  payload.on('error', (error) => settle(error));
  // Counted before the parser sees a chunk, so that nothing past the limit is parsed.
  payload.on('data', count);
  payload.pipe(parser);
}

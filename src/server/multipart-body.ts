import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { BodyOutcome } from './body-outcome.js';

/** What a multipart body gives the parameter reader: each field's value, or values when repeated. */
export type MultipartFields = Record<string, string | string[]>;

/**
 * A `multipart/form-data` body's fields; each file part read to its end and dropped (SPEC 2.1).
 * The bytes are counted before the parser sees them: past `limit` it is a 413, and the byte count
 * bounds the number of parts too.
 */
export function readMultipart(
  headers: IncomingHttpHeaders,
  payload: IncomingMessage,
  limit: number,
  done: (outcome: BodyOutcome) => void,
): void {
  let parser: BusboyInstance;
  try {
    parser = Busboy({
      headers: headers as IncomingHttpHeaders & { 'content-type': string },
      limits: { fieldSize: limit, fileSize: limit, fields: limit, parts: limit },
    });
  } catch {
    // No boundary, or not multipart at all after the media type.
    done({ error: 'malformedRequest' });
    return;
  }
  // No prototype: a field named `__proto__` or `constructor` is just a field.
  const fields: MultipartFields = Object.create(null);
  let settled = false;
  let received = 0;
  const settle = (outcome: BodyOutcome) => {
    if (settled) return;
    settled = true;
    payload.off('data', count);
    // The rest of a refused body is left unread: the door closes the connection.
    payload.unpipe(parser);
    done(outcome);
  };
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) settle({ error: 'bodyTooLarge' });
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
  parser.on('finish', () => settle({ body: fields }));
  parser.on('error', () => settle({ error: 'malformedRequest' }));
  payload.on('error', () => settle({ aborted: true }));
  // Counted before the parser sees a chunk, so that nothing past the limit is parsed.
  payload.on('data', count);
  payload.pipe(parser);
}

import { Readable } from 'node:stream';
import { type ErrorKind, errorKinds } from '../variants/error-kinds.js';
import type { VariantRuntime } from '../variants/variant-runtime.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * What an answer is written to: the API door's reply (src/server/api-door.ts) or Fastify's (the
 * other surfaces' 404s). Header names are lower case, and setting one again replaces it.
 */
export interface JsonReply {
  code(statusCode: number): JsonReply;
  header(name: string, value: string | number): JsonReply;
  send(payload: Buffer | Readable): JsonReply;
}

/** A whole success body answered with another status than 200 (201: an activation made). */
export class StatusAnswer {
  constructor(
    readonly status: number,
    readonly body: Buffer,
  ) {}
}

/** What an endpoint answers: the whole body as bytes, or as text chunks to stream (status 200), or a StatusAnswer. */
export type AnswerBody = Buffer | AsyncIterable<string> | StatusAnswer;

/**
 * Sends a JSON body with the headers every answer carries (SPEC 2.2 rule 5, and `nosniff` so that
 * no browser reads an answer as anything but JSON); chunks go out as they come (chunked).
 */
export function sendJson(reply: JsonReply, statusCode: number, body: Buffer | AsyncIterable<string>): JsonReply {
  reply
    .code(statusCode)
    .header('content-type', JSON_TYPE)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff');
  return reply.send(Buffer.isBuffer(body) ? body : Readable.from(body, { objectMode: false }));
}

/** Sends an error of the catalogue in the variant's envelope, its stable code in `X-Error-Code`. */
export function sendError(reply: JsonReply, variant: VariantRuntime, kind: ErrorKind, detail?: string): JsonReply {
  const { status, code } = errorKinds[kind];
  return sendJson(reply.header('x-error-code', code), status, variant.errorBody(kind, detail));
}

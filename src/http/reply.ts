import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { type ErrorKind, errorStatus } from './error-kinds.js';
import type { VariantRuntime } from './variant-runtime.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends a body already serialised to JSON, with the headers every answer carries (SPEC 2.2.5). */
export function sendJson(reply: FastifyReply, statusCode: number, body: string): FastifyReply {
  return reply.code(statusCode).header('content-type', JSON_TYPE).header('cache-control', 'no-store').send(body);
}

export function sendError(
  reply: FastifyReply,
  variant: VariantRuntime,
  kind: ErrorKind,
  detail?: string,
): FastifyReply {
  return sendJson(reply, errorStatus[kind], variant.errorBody(kind, detail));
}

/** Sends `{"status":"<ok word>",<rest>}` where `rest` is the serialised remainder of the envelope. */
export function sendOk(reply: FastifyReply, variant: VariantRuntime, rest: string): FastifyReply {
  return sendJson(reply, 200, `${variant.okPrefix}${rest}}`);
}

async function* envelope(variant: VariantRuntime, rest: AsyncIterable<string>): AsyncGenerator<string> {
  yield variant.okPrefix;
  yield* rest;
  yield '}';
}

/** The same, with the remainder given as chunks: sent as they come (chunked), never held whole. */
export function sendOkStream(reply: FastifyReply, variant: VariantRuntime, rest: AsyncIterable<string>): FastifyReply {
  return reply
    .code(200)
    .header('content-type', JSON_TYPE)
    .header('cache-control', 'no-store')
    .send(Readable.from(envelope(variant, rest), { objectMode: false }));
}

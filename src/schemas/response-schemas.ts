import { type TSchema, Type } from '@sinclair/typebox';
import type { ErrorKind } from '../variants/error-kinds.js';
import type { VariantTexts } from '../variants/variant-texts.js';
import { type ContractRoute, routeErrorKinds, UNROUTED_ERROR_KINDS } from './endpoint-contract.js';

/** Error kinds whose message names a parameter or the fault, so is not one fixed text. */
const SENTENCE_KINDS: ReadonlySet<ErrorKind> = new Set(['badParameter', 'malformedRequest']);

/** The success envelope of a route in a variant: `{ "status": <ok word>, ...members }`. */
export function successEnvelope(route: ContractRoute, texts: VariantTexts): TSchema {
  const { contract } = route;
  return Type.Object(
    { status: Type.Literal(texts.statusOk), ...contract.success },
    { additionalProperties: false, title: `${contract.operationId} (${texts.lang})` },
  );
}

/** `{ "status": <error word>, "msg": ... }` with the messages of the given kinds in a variant (SPEC 2.3). */
export function errorEnvelope(kinds: readonly ErrorKind[], texts: VariantTexts): TSchema {
  const sentence = kinds.some((kind) => SENTENCE_KINDS.has(kind));
  const messages = kinds.map((kind) => texts.messages[kind]);
  const msg = sentence
    ? Type.String({ minLength: 1, description: 'A sentence naming the parameter or the fault' })
    : messages.length === 1
      ? Type.Literal(messages[0] as string)
      : Type.Unsafe<string>({ type: 'string', enum: messages });
  return Type.Object({ status: Type.Literal(texts.statusError), msg }, { additionalProperties: false });
}

/** Every answer a route may give in a variant, by HTTP status. */
export function routeResponseSchemas(route: ContractRoute, texts: VariantTexts): ReadonlyMap<number, TSchema> {
  const success = successEnvelope(route, texts);
  const schemas = new Map<number, TSchema>(
    (route.contract.successStatuses ?? [200]).map((status) => [status, success]),
  );
  for (const [status, kinds] of routeErrorKinds(route)) schemas.set(status, errorEnvelope(kinds, texts));
  return schemas;
}

/** What a path no route serves answers with in a variant, by HTTP status. */
export function unroutedResponseSchemas(texts: VariantTexts): ReadonlyMap<number, TSchema> {
  return new Map([...UNROUTED_ERROR_KINDS].map(([status, kinds]) => [status, errorEnvelope(kinds, texts)]));
}

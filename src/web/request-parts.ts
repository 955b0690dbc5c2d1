import { KindGuard, type StaticDecode, type TObject, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifySchemaCompiler, RouteGenericInterface } from 'fastify';

/**
 * The schemas of a route's parts, each a TypeBox object: what its handler reads from the path,
 * the query string and the body, and what each field decodes to.
 */
export interface PartSchemas {
  readonly params?: TObject;
  readonly querystring?: TObject;
  readonly body?: TObject;
}

type DecodedOr<T> = T extends TObject ? StaticDecode<T> : unknown;

/** The route's types as its schemas decode them: what `request.params`, `.query` and `.body` hold. */
export interface RouteOf<S extends PartSchemas> extends RouteGenericInterface {
  Params: DecodedOr<S['params']>;
  Querystring: DecodedOr<S['querystring']>;
  Body: DecodedOr<S['body']>;
}

/**
 * A part of a request as its schema reads it: every declared field checked and decoded by
 * TypeBox (a field that was not sent is decoded from `undefined`), the others left as they came
 * (the CSRF plugin reads its own). A part that is no object reads as one with no fields.
 */
export function decodePart<T extends TObject>(schema: T, data: unknown): StaticDecode<T> {
  return decodeFields(schema.properties, data) as StaticDecode<T>;
}

function decodeFields(fields: Readonly<Record<string, TSchema>>, data: unknown): Record<string, unknown> {
  const given: Record<string, unknown> = data !== null && typeof data === 'object' ? { ...data } : {};
  for (const [name, field] of Object.entries(fields)) given[name] = Value.Decode(field, given[name]);
  return given;
}

/**
 * Fastify's validator for the routes of a scope whose schemas are TypeBox objects: Fastify checks
 * each part before the handler runs and hands it the decoded part. A part whose field does not
 * match its schema is a validation error, answered by the scope's error handler.
 */
export const partsValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema }) => {
  const fields: unknown = schema.properties;
  if (schema.type !== 'object' || !isFieldTable(fields)) throw new Error('a route part must be a TypeBox object');
  return (data: unknown) => {
    try {
      return { value: decodeFields(fields, data) };
    } catch (error) {
      return { error: error instanceof Error ? error : new Error(String(error)) };
    }
  };
};

const isFieldTable = (value: unknown): value is Record<string, TSchema> =>
  value !== null && typeof value === 'object' && Object.values(value).every((field) => KindGuard.IsSchema(field));

/**
 * A form's text field: what the browser typed, or '' when the field was not sent or not as one
 * text (a repeated field, a JSON value): the page then answers as it does for a blank field.
 */
export const FormText = Type.Transform(Type.Unknown())
  .Decode((value): string => (typeof value === 'string' ? value : ''))
  .Encode((value) => value);

/**
 * A field whose value is passed on as it came, for the operation that checks it to say what is
 * wrong with it (the admin API's JSON fields, for one).
 */
export const AsGiven = Type.Unknown();

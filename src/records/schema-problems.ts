import type { TSchema } from '@sinclair/typebox';
import { type TypeCheck, type ValueError, ValueErrorType } from '@sinclair/typebox/compiler';

/**
 * What is wrong with a line that its schema rejects, one message per field, in clear English.
 * Built from the schema and the path only, never from the value (a value may be a secret).
 */
export function schemaProblems(checker: TypeCheck<TSchema>, value: unknown): string[] {
  const byField = new Map<string, string>();
  for (const error of checker.Errors(value)) {
    const field = fieldName(error.path);
    // A missing field is also reported as having the wrong type: keep the first message.
    if (!byField.has(field)) byField.set(field, describe(field, error));
  }
  return [...byField.values()];
}

/** A JSON pointer ("/price/regular", "/tags/0") as the field name a user wrote ("price.regular", "tags[0]"). */
export function fieldName(pointer: string): string {
  let name = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    name += /^\d+$/.test(part) ? `[${part}]` : name === '' ? part : `.${part}`;
  }
  return name === '' ? 'the line' : name;
}

function describe(field: string, error: ValueError): string {
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `${field} is required`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `unknown field ${field}`;
    case ValueErrorType.String:
      return `${field} must be a string`;
    case ValueErrorType.Number:
    case ValueErrorType.Integer:
      return `${field} must be a number`;
    case ValueErrorType.Boolean:
      return `${field} must be true or false`;
    case ValueErrorType.Array:
      return `${field} must be an array`;
    case ValueErrorType.Object:
      return `${field} must be an object`;
    case ValueErrorType.Literal:
      return `${field} must be ${JSON.stringify(error.schema.const)}`;
    case ValueErrorType.Union:
      return `${field} must be ${describeUnion(error.schema)}`;
    default:
      return `${field} is not valid (${error.message.toLowerCase()})`;
  }
}

/** "one of "active", "suspended"" for a union of literals; "a string or a number" for a union of types. */
function describeUnion(schema: TSchema): string {
  const variants = (schema.anyOf ?? []) as TSchema[];
  if (variants.length > 0 && variants.every((variant) => 'const' in variant)) {
    return `one of ${variants.map((variant) => JSON.stringify(variant.const)).join(', ')}`;
  }
  const kinds = variants.map((variant) => {
    const kind = variant.type === 'integer' ? 'number' : String(variant.type);
    return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
  });
  return [...new Set(kinds)].join(' or ');
}

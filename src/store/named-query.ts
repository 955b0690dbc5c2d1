import type { CompiledQuery } from 'kysely';

/** The kind of value a named parameter takes. */
export type ParameterKind = 'text' | 'number';

/** The values a query's named parameters take, by name, from their kinds. */
export type ParameterValues<Kinds extends Record<string, ParameterKind>> = {
  readonly [Name in keyof Kinds]: Kinds[Name] extends 'number' ? number : string;
};

/**
 * A query compiled once by Kysely whose parameters are bound by name. The SQL of a compiled query
 * does not depend on its values, so each dialect prepares it once and reuses it per call; which
 * value goes to which placeholder is read from the compiled query itself, so reordering the
 * builder's calls (a `.where` before another) cannot bind a value to the wrong column.
 */
export interface NamedQuery<Row, Values> {
  readonly sql: string;
  /** The values in the order the placeholders appear; throws when one of the names is missing. */
  bind(values: Values): unknown[];
  /** The query as Kysely compiled it, its parameters the stand-ins. */
  readonly compiled: CompiledQuery<Row>;
}

/**
 * A stand-in per name, unlike any value a query of ours holds: a text that starts with a NUL
 * character, a number below any id, count or time the store keeps.
 */
function sentinels(kinds: Record<string, ParameterKind>): Map<unknown, string> {
  const byValue = new Map<unknown, string>();
  let next = Number.MIN_SAFE_INTEGER;
  for (const [name, kind] of Object.entries(kinds)) {
    byValue.set(kind === 'number' ? next++ : `\u0000:named-parameter:${name}`, name);
  }
  return byValue;
}

/**
 * Builds a query once with a stand-in value per named parameter and compiles it: each stand-in
 * found among the compiled parameters says which name binds there; every other parameter (a
 * constant of the query, such as `'approved'`) keeps its value. Throws at once when a name's
 * stand-in is found nowhere: the query would never use the value given for it.
 */
export function namedQuery<Row, const Kinds extends Record<string, ParameterKind>>(
  kinds: Kinds,
  build: (parameters: ParameterValues<Kinds>) => { compile(): CompiledQuery<Row> },
): NamedQuery<Row, ParameterValues<Kinds>> {
  const byValue = sentinels(kinds);
  const parameters = Object.fromEntries([...byValue].map(([value, name]) => [name, value]));
  const compiled = build(parameters as ParameterValues<Kinds>).compile();
  const fixed = [...compiled.parameters];
  const named: { readonly position: number; readonly name: string }[] = [];
  fixed.forEach((value, position) => {
    const name = byValue.get(value);
    if (name !== undefined) named.push({ position, name });
  });
  const missing = Object.keys(kinds).filter((name) => !named.some((slot) => slot.name === name));
  if (missing.length > 0) {
    throw new Error(
      `named query: no placeholder for ${missing.map((name) => `"${name}"`).join(', ')} in ${compiled.sql}`,
    );
  }
  return {
    sql: compiled.sql,
    compiled,
    bind(values) {
      const given = values as Readonly<Record<string, unknown>>;
      const bound = fixed.slice();
      for (const { position, name } of named) {
        const value = given[name];
        if (value === undefined) throw new Error(`named query: no value for "${name}"`);
        bound[position] = value;
      }
      return bound;
    },
  };
}

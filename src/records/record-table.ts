import {
  type Static,
  type TLiteral,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  Type,
} from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { FieldReader, type LineReading, reading } from './field-reader.js';
import { schemaProblems } from './schema-problems.js';

/** A column's portable type, as the migrations declare it. */
export type SqlType = 'text' | 'bigint' | 'integer';

/** A line's fields, once its schema has checked them (the reads cast what they need). */
export type LineValues = Readonly<Record<string, unknown>>;

/**
 * Where an import line gives a value: a field of the line (`email`), or a field of one of its
 * objects (`profile.heading`). Left out, the field is the entry's own name.
 */
export type LinePath = string;

/** Turns a line's value (already shaped by its schema) into what is kept, noting problems on the reader. */
export type ReadValue<V, T> = (value: V, reader: FieldReader, line: LineValues) => T;

/**
 * One column of a record's table: its SQL type, the schema of its stored value (the record type is
 * derived from it), and how an import line gives it. A column with no line field is derived from
 * the line's other fields (`code_key` from `code`).
 */
export interface Column<S extends TSchema = TSchema, F extends TSchema | undefined = TSchema | undefined> {
  readonly kind: 'column';
  readonly sql: SqlType;
  readonly stored: S;
  /** The line field's schema, `TOptional` when the line may leave it out; undefined for a derived column. */
  readonly field: F;
  readonly at: LinePath | undefined;
  readonly read: ReadValue<unknown, Static<S>>;
}

/**
 * A field of the import line that is not a column of this table (`api_key`: the importer turns it
 * into the key columns; a field kept in another table). Its reading comes back beside the record.
 */
export interface LineOnly<F extends TSchema = TSchema, V = unknown> {
  readonly kind: 'line';
  readonly field: F;
  readonly at: LinePath | undefined;
  readonly read: ReadValue<unknown, V>;
}

/** A column or line-only field, keyed by column (or field) name in a table. */
export type Entry = Column | LineOnly;
export type Entries = Readonly<Record<string, Entry>>;

interface ColumnSpec<S extends TSchema> {
  readonly sql: SqlType;
  readonly stored: S;
  /** Where the line gives it, when not at the top under the column's own name. */
  readonly at?: LinePath;
}

/** A column the line must give. */
export function required<S extends TSchema, F extends TSchema, const At extends LinePath | undefined = undefined>(
  spec: ColumnSpec<S> & { readonly field: F; readonly at?: At },
  read: ReadValue<Static<F>, Static<S>>,
): Column<S, F> & { readonly at: At } {
  const { sql, stored, field } = spec;
  return { kind: 'column', sql, stored, field, at: spec.at as At, read: read as ReadValue<unknown, Static<S>> };
}

/** A column the line may leave out (or give as null): `read` gets undefined then, and gives the default. */
export function optional<S extends TSchema, F extends TSchema, const At extends LinePath | undefined = undefined>(
  spec: ColumnSpec<S> & { readonly field: F; readonly at?: At },
  read: ReadValue<Static<F> | undefined, Static<S>>,
): Column<S, TOptional<F>> & { readonly at: At } {
  const { sql, stored } = spec;
  const field = Type.Optional(spec.field) as TOptional<F>;
  return { kind: 'column', sql, stored, field, at: spec.at as At, read: read as ReadValue<unknown, Static<S>> };
}

/** A column made from the line's other fields. */
export function derived<S extends TSchema>(
  spec: ColumnSpec<S>,
  read: (reader: FieldReader, line: LineValues) => Static<S>,
): Column<S, undefined> {
  return {
    kind: 'column',
    sql: spec.sql,
    stored: spec.stored,
    field: undefined,
    at: undefined,
    read: (_, r, l) => read(r, l),
  };
}

/** An optional line field kept elsewhere: `read` gets undefined when the line leaves it out. */
export function lineOnly<F extends TSchema, V, const At extends LinePath | undefined = undefined>(
  spec: { readonly field: F; readonly at?: At },
  read: ReadValue<Static<F> | undefined, V>,
): LineOnly<TOptional<F>, V> & { readonly at: At } {
  return {
    kind: 'line',
    field: Type.Optional(spec.field) as TOptional<F>,
    at: spec.at as At,
    read: read as ReadValue<unknown, V>,
  };
}

/** A column the import does not fill from a line (the key columns of an account). */
export interface StoredColumn<S extends TSchema = TSchema> {
  readonly sql: SqlType;
  readonly stored: S;
}

// ---- Types derived from a table ------------------------------------------------------------

type ColumnKeys<E> = { [K in keyof E]: E[K] extends Column ? K : never }[keyof E];
type LineOnlyKeys<E> = { [K in keyof E]: E[K] extends LineOnly ? K : never }[keyof E];

/** The record a table keeps: one property per column, typed by its stored schema. */
export type RecordOf<E> = { -readonly [K in ColumnKeys<E>]: E[K] extends Column<infer S> ? Static<S> : never };

/** The values of a table's line-only fields. */
export type ExtrasOf<E> = { -readonly [K in LineOnlyKeys<E>]: E[K] extends LineOnly<TSchema, infer V> ? V : never };

/** The stored values of plain columns (such as the key columns). */
export type StoredOf<C> = { -readonly [K in keyof C]: C[K] extends StoredColumn<infer S> ? Static<S> : never };

type FieldOf<T> = T extends { readonly field: infer F extends TSchema } ? F : never;
type GroupOf<At> = At extends `${infer G}.${string}` ? G : never;

/** The top-level fields of a line: entries with a field and no dotted path, named by `at` or their key. */
type TopFields<E> = {
  -readonly [K in keyof E as E[K] extends { readonly field: TSchema }
    ? E[K] extends { readonly at: infer At extends string }
      ? At extends `${string}.${string}`
        ? never
        : At
      : K
    : never]: FieldOf<E[K]>;
};

type GroupNames<E> = { [K in keyof E]: E[K] extends { readonly at: infer At } ? GroupOf<At> : never }[keyof E];

type GroupFields<E, G extends string> = {
  -readonly [K in keyof E as E[K] extends { readonly at: `${G}.${infer N}` } ? N : never]: FieldOf<E[K]>;
};

/** How a line gives each group of fields: an object the line may leave out, or must give. */
export type Groups = Readonly<Record<string, 'optional' | 'required'>>;

type GroupSchemas<E, Gs extends Groups> = {
  -readonly [G in GroupNames<E> & keyof Gs & string]: Gs[G] extends 'optional'
    ? TOptional<TObject<GroupFields<E, G>>>
    : TObject<GroupFields<E, G>>;
};

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The schema of a table's import line: `type` first, then every field, objects where paths are dotted. */
export type LineSchemaOf<N extends string, E, Gs extends Groups> = TObject<
  Flatten<{ type: TLiteral<N> } & TopFields<E> & GroupSchemas<E, Gs>>
>;

// ---- The table ------------------------------------------------------------------------------

/** A table's column as the SQL builders need it. */
export interface ColumnName {
  readonly name: string;
  readonly sql: SqlType;
}

/** What reading a line gives: the record, and the values of the line-only fields. */
export interface LineRecord<R, X> {
  readonly record: R;
  readonly extras: X;
}

/**
 * One record's definition: its table, its natural key, its columns (and the line-only fields of
 * its import line, in line order), and what is derived from them: the import line's schema and
 * reader, the columns the stores write.
 */
export interface RecordTable<N extends string, E extends Entries, Gs extends Groups, K extends ColumnKeys<E>> {
  /** The SQL table. */
  readonly table: string;
  /** The `type` of its import lines. */
  readonly lineType: N;
  /** The natural key column. */
  readonly key: K;
  readonly entries: E;
  /** Every column the import writes, in table order, the key among them. */
  readonly columns: readonly ColumnName[];
  /** The columns the import writes besides the key, in table order. */
  readonly valueColumns: readonly (Exclude<ColumnKeys<E>, K> & string)[];
  /** The import line's schema (SPEC 5): strict, every field of the table, `type` first. */
  readonly lineSchema: LineSchemaOf<N, E, Gs>;
  /** Checks a line (an object whose `type` is `lineType`) and reads it into the record and the extras. */
  readLine(value: unknown): LineReading<LineRecord<RecordOf<E>, ExtrasOf<E>>>;
}

/** Builds a record's table from its entries (columns and line-only fields, in order) and its groups. */
export function defineRecordTable<
  const N extends string,
  const E extends Entries,
  const Gs extends Groups,
  const K extends ColumnKeys<E>,
>(definition: {
  readonly table: string;
  readonly lineType: N;
  readonly key: K;
  readonly groups: Gs;
  readonly entries: E;
}): RecordTable<N, E, Gs, K> {
  const { table, lineType, key, groups, entries } = definition;
  const lineSchema = buildLineSchema(lineType, entries, groups);
  const checker = TypeCompiler.Compile(lineSchema);
  const steps = Object.entries(entries).map(([name, entry]) => stepOf(name, entry));
  const columns: ColumnName[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    if (entry.kind === 'column') columns.push({ name, sql: entry.sql });
  }
  const readAll = lineReader(steps);
  const valueColumns = columns.filter((column) => column.name !== key).map((column) => column.name);
  return {
    table,
    lineType,
    key,
    entries,
    columns,
    valueColumns: valueColumns as unknown as RecordTable<N, E, Gs, K>['valueColumns'],
    lineSchema,
    readLine(value) {
      if (!checker.Check(value)) return { ok: false, problems: schemaProblems(checker, value) };
      const reader = new FieldReader();
      const read = readAll(value as LineValues, reader) as LineRecord<RecordOf<E>, ExtrasOf<E>>;
      return reading(reader, read);
    },
  };
}
interface Step {
  readonly name: string;
  readonly column: boolean;
  readonly group: string | undefined;
  /** The line field read, or undefined for a derived column. */
  readonly field: string | undefined;
  readonly read: ReadValue<unknown, unknown>;
}

function stepOf(name: string, entry: Entry): Step {
  const [group, field] = splitPath(entry.at ?? name);
  const fromLine = entry.field !== undefined;
  return { name, column: entry.kind === 'column', group, field: fromLine ? field : undefined, read: entry.read };
}

/**
 * The function that reads a checked line: every step's read in order (so problems are listed in
 * table order), then the record and the extras each made as one object literal. Made as code from
 * the table's own names, never from input, so that each record has the same shape from birth and
 * the loop over the steps costs nothing per line (a generic loop filling an object key by key made
 * the import's line reading slower).
 */
function lineReader(steps: readonly Step[]): (line: LineValues, reader: FieldReader) => LineRecord<object, object> {
  const key = (name: string) => `[${JSON.stringify(name)}]`;
  const given = (step: Step) =>
    step.field === undefined
      ? 'undefined'
      : step.group === undefined
        ? `line${key(step.field)}`
        : `line${key(step.group)}?.${key(step.field)}`;
  const reads = steps.map((step, index) => `const v${index} = reads[${index}](${given(step)}, reader, line);`);
  const fields = (column: boolean) =>
    steps.flatMap((step, index) => (step.column === column ? [`${JSON.stringify(step.name)}: v${index}`] : []));
  const body = `return (line, reader) => {\n${reads.join('\n')}\nreturn { record: { ${fields(true).join(', ')} }, extras: { ${fields(false).join(', ')} } };\n};`;
  const make = new Function('reads', body) as (
    reads: readonly ReadValue<unknown, unknown>[],
  ) => (line: LineValues, reader: FieldReader) => LineRecord<object, object>;
  return make(steps.map((step) => step.read));
}

function splitPath(path: LinePath): [string | undefined, string] {
  const dot = path.indexOf('.');
  return dot === -1 ? [undefined, path] : [path.slice(0, dot), path.slice(dot + 1)];
}

function buildLineSchema<N extends string, E extends Entries, Gs extends Groups>(
  lineType: N,
  entries: E,
  groups: Gs,
): LineSchemaOf<N, E, Gs> {
  const properties: TProperties = { type: Type.Literal(lineType) };
  const grouped = new Map<string, TProperties>();
  for (const [name, entry] of Object.entries(entries)) {
    if (entry.field === undefined) continue;
    const [group, field] = splitPath(entry.at ?? name);
    if (group === undefined) {
      properties[field] = entry.field;
      continue;
    }
    let members = grouped.get(group);
    if (members === undefined) {
      if (groups[group] === undefined) throw new Error(`${lineType} line: no group ${group} for ${name}`);
      members = {};
      grouped.set(group, members);
      // Holds the object's place (that of its first field) until its fields are all known.
      properties[group] = Type.Never();
    }
    members[field] = entry.field;
  }
  for (const [group, members] of grouped) {
    const object = Type.Object(members, { additionalProperties: false });
    properties[group] = groups[group] === 'optional' ? Type.Optional(object) : object;
  }
  return Type.Object(properties, { additionalProperties: false }) as TObject as LineSchemaOf<N, E, Gs>;
}

/**
 * Drops the fields a line gives as null where its schema knows them (SPEC 5: a field given as null
 * is a field left out), so that they take their defaults; a null under an unknown name stays, for
 * the schema to report as an unknown field. Null entries of arrays stay too (they are errors).
 */
export function dropKnownNulls(value: Record<string, unknown>, schema: TSchema): void {
  const properties = schema.properties as TProperties | undefined;
  const isMap = schema.patternProperties !== undefined;
  for (const name of Object.keys(value)) {
    const given = value[name];
    const known = properties !== undefined && Object.hasOwn(properties, name);
    if (given === null) {
      if (known || isMap) delete value[name];
    } else if (known && typeof given === 'object' && !Array.isArray(given)) {
      dropKnownNulls(given as Record<string, unknown>, properties[name] as TSchema);
    }
  }
}

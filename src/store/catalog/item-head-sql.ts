import { type RawBuilder, sql } from 'kysely';
import { PREVIEW_FIELDS_BY_TYPE } from '../../domain/media.js';
import { NO_SCREENSHOTS } from '../../records/serialize.js';
import type { Dialect } from '../dialect.js';

/**
 * serializeItemHead as an SQL expression over the `items` table, made by the store while it reads
 * the row: a long list then costs one string per item to read instead of eighteen, and no
 * serialising in the process (bench/README.md has the figures).
 * It must give the very same text: both stores' JSON quoting escapes exactly what JSON.stringify
 * does (`"`, `\`, and control characters, short forms first), which
 * test/api/items-all-text.test.ts checks through the API on both stores.
 */
export function itemHeadSql(dialect: Dialect): RawBuilder<string> {
  const quoted = (column: string) =>
    dialect === 'sqlite' ? sql`json_quote(${sql.ref(column)})` : sql`to_json(${sql.ref(column)})::text`;
  const text = (value: string) => sql.lit(value);
  const previews = Object.entries(PREVIEW_FIELDS_BY_TYPE).map(
    ([type, fields]) =>
      sql`when ${text(type)} then ${sql.join(
        fields.map((field) => sql`${text(`,"${field}":`)} || ${quoted(field)}`),
        sql` || `,
      )}`,
  );
  return sql<string>`${text('{"id":')} || ${sql.ref('id')}
    || ${text(',"name":')} || ${quoted('name')}
    || ${text(',"description":')} || ${quoted('description')}
    || ${text(',"category":')} || ${quoted('category')}
    || ${text(',"sub_category":')} || ${quoted('sub_category')}
    || ${text(',"options":')} || ${sql.ref('options')}
    || ${text(',"version":')} || ${quoted('version')}
    || ${text(',"demo_link":')} || ${quoted('demo_link')}
    || ${text(',"tags":')} || ${sql.ref('tags')}
    || ${text(',"media":{"thumbnail":')} || ${quoted('thumbnail')}
    || case ${sql.ref('preview_type')} ${sql.join(previews, sql` `)} else '' end
    || case when ${sql.ref('screenshots')} = ${text(NO_SCREENSHOTS)} then '' else ${text(',"screenshots":')} || ${sql.ref('screenshots')} end
    || ${text('}')}`;
}

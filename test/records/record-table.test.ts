import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ACCOUNTS } from '../../src/records/account-table.js';
import { ITEMS } from '../../src/records/item-table.js';
import { PURCHASES } from '../../src/records/purchase-table.js';
import {
  defineRecordTable,
  derived,
  dropKnownNulls,
  lineOnly,
  optional,
  required,
} from '../../src/records/record-table.js';

/** A small table with one of each kind of entry, as a field kept in another table would be added. */
const NOTES = defineRecordTable({
  table: 'notes',
  lineType: 'note',
  key: 'id',
  groups: { meta: 'optional' },
  entries: {
    id: required({ sql: 'bigint', stored: Type.Integer(), field: Type.Number() }, (id) => id),
    id_text: derived({ sql: 'text', stored: Type.String() }, (_reader, line) => String(line.id)),
    body: optional({ sql: 'text', stored: Type.String(), field: Type.String() }, (body, reader) => {
      if (body === '') reader.problem('body must not be empty');
      return body ?? 'none';
    }),
    secret: lineOnly({ field: Type.String() }, (secret, reader) => {
      if (secret !== undefined && secret.length < 4) reader.problem('secret must be 4 characters or more');
      return secret;
    }),
    author: optional({ sql: 'text', stored: Type.String(), field: Type.String(), at: 'meta.author' }, (a) => a ?? ''),
  },
});

describe('defineRecordTable', () => {
  it('makes the line schema: type first, fields in entry order, a group where its first field is', () => {
    expect(Object.keys(NOTES.lineSchema.properties)).toEqual(['type', 'id', 'body', 'secret', 'meta']);
    expect(NOTES.lineSchema.required).toEqual(['type', 'id']);
    expect(NOTES.lineSchema.additionalProperties).toBe(false);
    expect(Object.keys(NOTES.lineSchema.properties.meta.properties)).toEqual(['author']);
  });

  it('lists the columns in entry order, line-only fields left out', () => {
    expect(NOTES.columns).toEqual([
      { name: 'id', sql: 'bigint' },
      { name: 'id_text', sql: 'text' },
      { name: 'body', sql: 'text' },
      { name: 'author', sql: 'text' },
    ]);
    expect(NOTES.valueColumns).toEqual(['id_text', 'body', 'author']);
  });

  it('reads a line into the record and, beside it, the fields kept elsewhere', () => {
    expect(NOTES.readLine({ type: 'note', id: 7, secret: 'hush', meta: { author: 'jo' } })).toEqual({
      ok: true,
      value: { record: { id: 7, id_text: '7', body: 'none', author: 'jo' }, extras: { secret: 'hush' } },
    });
  });

  it('reports every problem in entry order, and the schema problems first', () => {
    expect(NOTES.readLine({ type: 'note', id: 1, body: '', secret: 'x' })).toEqual({
      ok: false,
      problems: ['body must not be empty', 'secret must be 4 characters or more'],
    });
    expect(NOTES.readLine({ type: 'note', body: 1, meta: { editor: 'x' } })).toEqual({
      ok: false,
      problems: ['id is required', 'body must be a string', 'unknown field meta.editor'],
    });
  });
});

describe('dropKnownNulls', () => {
  it('drops the nulls of known fields, at any depth, and keeps those of unknown ones', () => {
    const line = { type: 'note', id: 1, body: null, secret: null, meta: { author: null, editor: null }, tag: null };
    dropKnownNulls(line, NOTES.lineSchema);
    expect(line).toEqual({ type: 'note', id: 1, meta: { editor: null }, tag: null });
  });

  it('drops the nulls of a map (social links) and keeps those inside an array', () => {
    const line = { profile: { social_links: { x: null, y: 'https://y.example' } }, tags: [null] };
    dropKnownNulls(
      line,
      Type.Object({ profile: ACCOUNTS.lineSchema.properties.profile, tags: ITEMS.lineSchema.properties.tags }),
    );
    expect(line).toEqual({ profile: { social_links: { y: 'https://y.example' } }, tags: [null] });
  });
});

describe('the record tables', () => {
  it('give the import lines of SPEC 5, field for field', () => {
    expect(Object.keys(ACCOUNTS.lineSchema.properties)).toEqual([
      'type',
      'username',
      'email',
      'firstname',
      'lastname',
      'balance',
      'status',
      'api_key',
      'registered_at',
      'password_hash',
      'api_keys',
      'profile',
      'marketbob',
    ]);
    expect(ACCOUNTS.lineSchema.required).toEqual(['type', 'username', 'email', 'registered_at']);
    expect(Object.keys(ACCOUNTS.lineSchema.properties.profile.properties)).toEqual([
      'heading',
      'description',
      'contact_email',
      'social_links',
      'avatar',
      'cover',
    ]);
    expect(Object.keys(ITEMS.lineSchema.properties)).toEqual([
      'type',
      'id',
      'account',
      'name',
      'description',
      'category',
      'sub_category',
      'options',
      'version',
      'demo_link',
      'tags',
      'preview_type',
      'thumbnail',
      'preview_image',
      'preview_video',
      'preview_audio',
      'screenshots',
      'price',
      'supported',
      'status',
      'published_at',
      'marketbob',
      'activation_limit',
    ]);
    expect(ITEMS.lineSchema.required).toEqual([
      'type',
      'id',
      'account',
      'name',
      'version',
      'preview_type',
      'thumbnail',
      'price',
      'status',
      'published_at',
    ]);
    expect(ITEMS.lineSchema.properties.price.required).toEqual(['regular', 'extended']);
    expect(Object.keys(PURCHASES.lineSchema.properties)).toEqual([
      'type',
      'code',
      'item_id',
      'license_type',
      'price',
      'supported_until',
      'downloaded',
      'status',
      'date',
      'marketbob',
      'activations',
    ]);
    expect(PURCHASES.lineSchema.required).toEqual(['type', 'code', 'item_id', 'license_type', 'price', 'date']);
  });
});

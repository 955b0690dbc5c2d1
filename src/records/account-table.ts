import { type Static, Type } from '@sinclair/typebox';
import { API_KEY_PATTERN } from '../domain/api-key-format.js';
import { KEY_NAME_MAX, KEY_SCOPES, type KeyScope, keyName } from '../domain/key-scope.js';
import { passwordHashProblem } from '../domain/password-hash-format.js';
import type { FieldReader } from './field-reader.js';
import { MoneySchema } from './field-reader.js';
import { MarketbobAccountSchema, MarketbobColumnSchema, marketbobText } from './marketbob-values.js';
import {
  defineRecordTable,
  type ExtrasOf,
  lineOnly,
  optional,
  type RecordOf,
  required,
  type StoredColumn,
  type StoredOf,
} from './record-table.js';

/** An account's status (SPEC 5). */
export const AccountStatusSchema = Type.Union([Type.Literal('active'), Type.Literal('suspended')]);
export type AccountStatus = Static<typeof AccountStatusSchema>;

const Text = Type.String();
const Url = Type.String({ description: 'An http(s) URL, or "" for none' });
const Timestamp = Type.String({ description: 'ISO 8601 with Z or an offset' });
const orEmpty = (value: string | undefined) => value ?? '';

/** One named key of an account line (`api_keys`). */
const NamedKeyLineSchema = Type.Object(
  {
    id: Type.String({ description: 'key_ and 1 to 60 letters or digits, as the service made it' }),
    name: Type.String({ description: `1 to ${KEY_NAME_MAX} characters` }),
    scope: Type.Union(
      KEY_SCOPES.map((scope) => Type.Literal(scope)),
      { description: 'validate (purchase validation and activations only) or full' },
    ),
    key: Type.String({ description: '16 to 128 characters of A-Za-z0-9_-' }),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);

/** A named key as an account line gives it, read (its key in clear: the importer keeps a digest and a ciphertext). */
export interface NamedKeyEntry {
  readonly id: string;
  readonly name: string;
  readonly scope: KeyScope;
  readonly key: string;
  /** Ms since the epoch. */
  readonly createdAt: number;
}

const NAMED_KEY_ID = /^key_[A-Za-z0-9]{1,60}$/;

function namedKeysOf(reader: FieldReader, keys: readonly Static<typeof NamedKeyLineSchema>[]): NamedKeyEntry[] {
  const ids = new Set<string>();
  return keys.map((key, index) => {
    const at = `api_keys[${index}]`;
    if (!NAMED_KEY_ID.test(key.id)) reader.problem(`${at}.id must be key_ and 1 to 60 letters or digits`);
    else if (ids.has(key.id)) reader.problem(`${at}.id is given twice`);
    ids.add(key.id);
    const name = keyName(key.name);
    if (name === undefined)
      reader.problem(`${at}.name must be 1 to ${KEY_NAME_MAX} characters, without control characters`);
    if (!API_KEY_PATTERN.test(key.key))
      reader.problem(`${at}.key must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -`);
    const createdAt = reader.timestamp(`${at}.created_at`, key.created_at);
    return { id: key.id, name: name ?? '', scope: key.scope, key: key.key, createdAt: Date.parse(createdAt) };
  });
}

/**
 * The `accounts` table and the `account` import line (SPEC 5), one entry per column in table
 * order; `api_key` is a field of the line only (the importer keeps its digest and ciphertext), and so
 * is `password_hash` (kept in `account_credentials`, never beside the rows the API caches).
 */
export const ACCOUNTS = defineRecordTable({
  table: 'accounts',
  lineType: 'account',
  key: 'username',
  groups: { profile: 'optional' },
  entries: {
    username: required(
      { sql: 'text', stored: Text, field: Type.String({ description: 'The natural key; no surrounding white space' }) },
      (username, reader) => {
        if (!isUsername(username)) reader.problem('username must be non-empty, without white space around it');
        return username;
      },
    ),
    email: required({ sql: 'text', stored: Text, field: Text }, (email) => email),
    firstname: optional({ sql: 'text', stored: Text, field: Text }, orEmpty),
    lastname: optional({ sql: 'text', stored: Text, field: Text }, orEmpty),
    /** Minor units of the store currency. */
    balance: optional({ sql: 'bigint', stored: Type.Integer(), field: MoneySchema }, (balance, reader) =>
      balance === undefined ? 0 : reader.money('balance', balance),
    ),
    status: optional(
      { sql: 'text', stored: AccountStatusSchema, field: AccountStatusSchema },
      (status) => status ?? 'active',
    ),
    api_key: lineOnly(
      { field: Type.String({ description: '16 to 128 characters of A-Za-z0-9_-; keeps an existing key working' }) },
      (apiKey, reader) => {
        if (apiKey !== undefined && !API_KEY_PATTERN.test(apiKey)) {
          reader.problem('api_key must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -');
        }
        return apiKey;
      },
    ),
    registered_at: required({ sql: 'text', stored: Text, field: Timestamp }, (at, reader) =>
      reader.timestamp('registered_at', at),
    ),
    password_hash: lineOnly(
      {
        field: Type.String({
          description:
            "bcrypt ($2y$, $2a$, $2b$, as Laravel writes it; cost at most 12) or this service's $scrypt$ text (ln at most 16, r=8, p=1)",
        }),
      },
      (passwordHash, reader) => {
        // Refused past the cost caps too: one check of such a hash would hold a CPU for seconds.
        const problem = passwordHash === undefined ? undefined : passwordHashProblem(passwordHash);
        if (problem !== undefined) reader.problem(problem);
        return passwordHash;
      },
    ),
    api_keys: lineOnly(
      {
        field: Type.Array(NamedKeyLineSchema, {
          description:
            "The account's named keys (see docs/api.md), each in clear as api_key is; upserted by id, never brought back once revoked unless keys may be replaced",
        }),
      },
      (keys, reader) => keys && namedKeysOf(reader, keys),
    ),
    heading: optional({ sql: 'text', stored: Text, field: Text, at: 'profile.heading' }, orEmpty),
    description: optional({ sql: 'text', stored: Text, field: Text, at: 'profile.description' }, orEmpty),
    contact_email: optional({ sql: 'text', stored: Text, field: Text, at: 'profile.contact_email' }, orEmpty),
    social_links: optional(
      {
        sql: 'text',
        stored: Type.String({
          description: 'JSON array of [network, link] pairs, sorted by network: the order responses use',
        }),
        field: Type.Record(Type.String(), Type.String(), { description: 'Network name to an http(s) link' }),
        at: 'profile.social_links',
      },
      (links, reader) => socialLinks(reader, links ?? {}),
    ),
    avatar: optional({ sql: 'text', stored: Text, field: Url, at: 'profile.avatar' }, (url, reader) =>
      reader.optionalUrl('profile.avatar', url),
    ),
    cover: optional({ sql: 'text', stored: Text, field: Url, at: 'profile.cover' }, (url, reader) =>
      reader.optionalUrl('profile.cover', url),
    ),
    /** MarketBob's own values (see marketbob-values.ts), as JSON; '' when the line had none. */
    marketbob: optional({ sql: 'text', stored: MarketbobColumnSchema, field: MarketbobAccountSchema }, marketbobText),
  },
});

/** The columns of `accounts` that the importer fills from the line's `api_key`, not from a field. */
export const ACCOUNT_KEY_COLUMNS = {
  /** HMAC-SHA256 of the key with the server secret: finds the account. */
  key_digest: { sql: 'text', stored: Text },
  /** AES-256-GCM ciphertext of the key: shows it to its owner again. */
  key_cipher: { sql: 'text', stored: Text },
} as const satisfies Record<string, StoredColumn>;

/** An account as the importer writes it. */
export type AccountRecord = RecordOf<typeof ACCOUNTS.entries>;
/** An account's line-only fields, as read. */
export type AccountExtras = ExtrasOf<typeof ACCOUNTS.entries>;
/** An account as stored: the record and its key columns. */
export type AccountRow = AccountRecord & StoredOf<typeof ACCOUNT_KEY_COLUMNS>;
/** An `account` import line. */
export type AccountLine = Static<typeof ACCOUNTS.lineSchema>;

/** A username worth keeping: not empty, and no white space around it that would make two names look alike. */
export function isUsername(value: string): boolean {
  return value !== '' && value.trim() === value;
}

/** The links as stored: a JSON array of [network, link] pairs, sorted by network. */
function socialLinks(reader: FieldReader, links: Record<string, string>): string {
  const networks = Object.keys(links).sort();
  const pairs: [string, string][] = [];
  for (const network of networks) {
    const field = `profile.social_links.${network}`;
    if (network.trim() === '') reader.problem('profile.social_links must not have an empty network name');
    pairs.push([network, reader.url(field, links[network] as string)]);
  }
  return JSON.stringify(pairs);
}

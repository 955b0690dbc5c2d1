import { type Static, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { AccountRecord } from '../domain/records.js';
import { API_KEY_PATTERN } from '../keys/api-keys.js';
import { isAcceptedPasswordHash } from '../passwords/password-hash.js';
import { FieldReader, type LineReading, MoneySchema, reading } from './field-reader.js';
import { schemaProblems } from './schema-problems.js';

const ProfileSchema = Type.Object(
  {
    heading: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    contact_email: Type.Optional(Type.String()),
    social_links: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Network name to an http(s) link' }),
    ),
    avatar: Type.Optional(Type.String({ description: 'An http(s) URL, or "" for none' })),
    cover: Type.Optional(Type.String({ description: 'An http(s) URL, or "" for none' })),
  },
  { additionalProperties: false },
);

/** An `account` line (SPEC 5). Fields left out take their defaults. */
export const AccountLineSchema = Type.Object(
  {
    type: Type.Literal('account'),
    username: Type.String({ description: 'The natural key; no surrounding white space' }),
    email: Type.String(),
    firstname: Type.Optional(Type.String()),
    lastname: Type.Optional(Type.String()),
    balance: Type.Optional(MoneySchema),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('suspended')])),
    api_key: Type.Optional(
      Type.String({ description: '16 to 128 characters of A-Za-z0-9_-; keeps an existing key working' }),
    ),
    registered_at: Type.String({ description: 'ISO 8601 with Z or an offset' }),
    password_hash: Type.Optional(
      Type.String({ description: "bcrypt ($2y$, $2a$, $2b$, as Laravel writes it) or this service's $scrypt$ text" }),
    ),
    profile: Type.Optional(ProfileSchema),
  },
  { additionalProperties: false },
);
export type AccountLine = Static<typeof AccountLineSchema>;

const checker = TypeCompiler.Compile(AccountLineSchema);

/** An account as the store keeps it, and the key the line gave, if any. */
export interface AccountEntry {
  readonly record: AccountRecord;
  readonly apiKey: string | undefined;
  /** The password hash the line gave, if any (kept apart from the record: see migration 0002). */
  readonly passwordHash: string | undefined;
}

/** Reads an account line (an object whose `type` is `account`). */
export function readAccountLine(value: unknown): LineReading<AccountEntry> {
  if (!checker.Check(value)) return { ok: false, problems: schemaProblems(checker, value) };
  const line = value;
  const reader = new FieldReader();
  if (!isUsername(line.username)) reader.problem('username must be non-empty, without white space around it');
  const apiKey = line.api_key;
  if (apiKey !== undefined && !API_KEY_PATTERN.test(apiKey)) {
    reader.problem('api_key must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -');
  }
  const passwordHash = line.password_hash;
  if (passwordHash !== undefined && !isAcceptedPasswordHash(passwordHash)) {
    reader.problem('password_hash must be a bcrypt hash ($2y$, $2a$ or $2b$) or a $scrypt$ hash this service wrote');
  }
  const profile = line.profile ?? {};
  const record: AccountRecord = {
    username: line.username,
    email: line.email,
    firstname: line.firstname ?? '',
    lastname: line.lastname ?? '',
    balance: line.balance === undefined ? 0 : reader.money('balance', line.balance),
    status: line.status ?? 'active',
    registered_at: reader.timestamp('registered_at', line.registered_at),
    heading: profile.heading ?? '',
    description: profile.description ?? '',
    contact_email: profile.contact_email ?? '',
    social_links: socialLinks(reader, profile.social_links ?? {}),
    avatar: reader.optionalUrl('profile.avatar', profile.avatar),
    cover: reader.optionalUrl('profile.cover', profile.cover),
  };
  return reading(reader, { record, apiKey, passwordHash });
}

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

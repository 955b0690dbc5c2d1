import { type Static, Type } from '@sinclair/typebox';
import { type AppKey, parseAppKey } from './laravel-encryption.js';
import { isTimeZone } from './marketbob-settings.js';

/**
 * The config file's `marketbob` section: where a MarketBob marketplace's database is and how to
 * read it. `url` may also come from MARKETBOB_DATABASE_URL (which wins, as the other variables do).
 */
export const MarketbobSchema = Type.Object(
  {
    url: Type.Optional(
      Type.String({ minLength: 1, description: "MarketBob's database: mysql://USER:PASS@HOST:PORT/DB" }),
    ),
    pollSeconds: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 3600, description: 'How often the follower asks for changes' }),
    ),
    mediaBaseUrl: Type.Optional(
      Type.String({
        minLength: 1,
        description: "Where MarketBob's storage paths are served: its APP_URL, or the storage provider's public URL",
      }),
    ),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "MarketBob's time zone (an IANA zone such as Europe/Lisbon); overrides its settings' general.timezone",
      }),
    ),
    reconcileMinutes: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 7 * 24 * 60,
        description: 'How often rows deleted in MarketBob are looked for',
      }),
    ),
    behindSeconds: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 24 * 3600,
        description: '/readyz says the source is behind when the store has not caught up with MarketBob for this long',
      }),
    ),
    appKey: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "MarketBob's APP_KEY (base64: and 32 bytes): opens its two-factor secrets for the workspace's code check",
      }),
    ),
  },
  { additionalProperties: false },
);
export type MarketbobFileSection = Static<typeof MarketbobSchema>;

/** A MarketBob source, every setting decided. */
export interface MarketbobConfig {
  /** mysql://USER:PASS@HOST:PORT/DB: holds a password, never logged (see `describeMarketbobUrl`). */
  readonly url: string;
  readonly pollSeconds: number;
  /** Without a trailing slash; media paths are joined to it with one. */
  readonly mediaBaseUrl: string;
  /**
   * MarketBob's zone as configured: overrides its `general.timezone` setting. Undefined: the
   * setting's zone, else UTC (see `effectiveTimezone`).
   */
  readonly timezone?: string | undefined;
  readonly reconcileMinutes: number;
  /**
   * How long the store may go without catching up with MarketBob (while no attempt fails) before
   * `/readyz` says the source is behind. A failed attempt says so at once.
   */
  readonly behindSeconds: number;
  /**
   * MarketBob's APP_KEY, when given: sellers who turned on two-factor login there are asked for
   * their code here; without it they are refused (docs/marketbob.md). Never printed.
   */
  readonly appKey?: AppKey;
}

export const MARKETBOB_DEFAULTS = { pollSeconds: 2, reconcileMinutes: 10, behindSeconds: 30 } as const;

/** The URL without its password (and user), for messages and logs. */
export function describeMarketbobUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `mysql://${parsed.host}${parsed.pathname}`;
  } catch {
    return 'mysql://(unreadable URL)';
  }
}

/**
 * The MarketBob source from the file's section and the environment over it
 * (MARKETBOB_DATABASE_URL, MARKETBOB_MEDIA_BASE_URL, MARKETBOB_TIMEZONE, MARKETBOB_APP_KEY), or undefined when
 * neither names a database. Problems go to `problems`, one line each, never repeating the URL
 * (it may hold a password).
 */
export function buildMarketbobConfig(
  section: MarketbobFileSection | undefined,
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): MarketbobConfig | undefined {
  const envUrl = env.MARKETBOB_DATABASE_URL;
  const url = envUrl?.trim() || section?.url;
  if (url === undefined) {
    if (section !== undefined) problems.push('marketbob.url: required (or MARKETBOB_DATABASE_URL)');
    return undefined;
  }
  const where = envUrl?.trim() ? 'MARKETBOB_DATABASE_URL' : 'marketbob.url';
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || parsed.protocol !== 'mysql:' || parsed.hostname === '' || parsed.pathname.length < 2) {
    problems.push(`${where}: must be mysql://USER:PASS@HOST:PORT/DB`);
  }
  const timezone = env.MARKETBOB_TIMEZONE?.trim() || section?.timezone || undefined;
  if (timezone !== undefined && !isTimeZone(timezone))
    problems.push(`marketbob.timezone: ${JSON.stringify(timezone)} is not a known time zone`);
  const givenMediaBaseUrl = env.MARKETBOB_MEDIA_BASE_URL?.trim() || section?.mediaBaseUrl;
  const mediaBaseUrl = (givenMediaBaseUrl ?? '').replace(/\/+$/, '');
  if (givenMediaBaseUrl === undefined) {
    problems.push(
      "marketbob.mediaBaseUrl (or MARKETBOB_MEDIA_BASE_URL): required, MarketBob's APP_URL or its storage provider's public URL",
    );
  } else if (!/^https?:\/\/[^/\s]+/.test(mediaBaseUrl)) {
    problems.push('marketbob.mediaBaseUrl: must be an http(s) URL');
  }
  const pollSeconds = section?.pollSeconds ?? MARKETBOB_DEFAULTS.pollSeconds;
  const behindSeconds = section?.behindSeconds ?? MARKETBOB_DEFAULTS.behindSeconds;
  // Caught up at each poll at best: a bound at or under the poll interval would say "behind" between polls.
  if (behindSeconds <= pollSeconds) {
    problems.push(`marketbob.behindSeconds: must be more than pollSeconds (${pollSeconds})`);
  }
  const givenAppKey = env.MARKETBOB_APP_KEY?.trim() || section?.appKey;
  const appKey = givenAppKey === undefined ? undefined : parseAppKey(givenAppKey);
  if (givenAppKey !== undefined && appKey === undefined) {
    // The value itself is a secret: the message names the setting only.
    problems.push(
      `${env.MARKETBOB_APP_KEY?.trim() ? 'MARKETBOB_APP_KEY' : 'marketbob.appKey'}: must be MarketBob's APP_KEY, base64: followed by 32 bytes in base64`,
    );
  }
  return Object.freeze({
    url,
    pollSeconds,
    mediaBaseUrl,
    timezone,
    reconcileMinutes: section?.reconcileMinutes ?? MARKETBOB_DEFAULTS.reconcileMinutes,
    behindSeconds,
    ...(appKey === undefined ? {} : { appKey }),
  });
}

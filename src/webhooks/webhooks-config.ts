import { type Static, Type } from '@sinclair/typebox';
import ipaddr from 'ipaddr.js';

/** Signed webhooks: where they may go, and how they are retried. */
export const WebhooksSchema = Type.Object(
  {
    allowHttp: Type.Optional(
      Type.Boolean({ description: 'Accept http:// endpoint URLs (development and tests); https only by default' }),
    ),
    allowHosts: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'Addresses or CIDRs (such as "127.0.0.1" or "10.1.0.0/16") an endpoint may resolve to even though they are ' +
          'private, loopback or link-local; none by default',
      }),
    ),
    timeoutSeconds: Type.Optional(
      Type.Number({ minimum: 0.05, maximum: 60, description: 'One attempt: connecting, sending, the answer' }),
    ),
    retryBaseSeconds: Type.Optional(
      Type.Number({
        minimum: 0.001,
        maximum: 3600,
        description: 'The wait after a first failed attempt; each next one doubles (with jitter)',
      }),
    ),
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, description: 'Attempts per delivery' })),
    concurrencyPerEndpoint: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'Attempts in flight at once to one endpoint' }),
    ),
    disableAfterHours: Type.Optional(
      Type.Number({
        minimum: 0.0001,
        maximum: 24 * 365,
        description: 'An endpoint whose every attempt failed for this long is disabled',
      }),
    ),
    pollSeconds: Type.Optional(
      Type.Number({ minimum: 0.01, maximum: 60, description: 'How often the queue is looked at' }),
    ),
    retentionDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3650,
        description: 'Finished deliveries and their events are kept this long (what a replay can send again)',
      }),
    ),
    secretOverlapHours: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 24 * 30,
        description: 'After a secret rotation, how long the old secret signs beside the new one',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WebhooksFile = Static<typeof WebhooksSchema>;

/** The settings as the service runs them. */
export type WebhooksSettings = Readonly<Omit<Required<WebhooksFile>, 'allowHosts'>> & {
  readonly allowHosts: readonly string[];
};

/**
 * The defaults: 13 attempts, the first at once and each next one twice as far as the last from
 * a minute on, reach about 2.8 days (60 s x (2^12 - 1)); an endpoint failing for 3 days is disabled.
 */
export const WEBHOOKS_DEFAULTS: WebhooksSettings = {
  allowHttp: false,
  allowHosts: [],
  timeoutSeconds: 10,
  retryBaseSeconds: 60,
  maxAttempts: 13,
  concurrencyPerEndpoint: 4,
  disableAfterHours: 72,
  pollSeconds: 1,
  retentionDays: 30,
  secretOverlapHours: 24,
};

/** The file's settings over the defaults. */
export function webhooksSettings(file: WebhooksFile | undefined): WebhooksSettings {
  return Object.freeze({ ...WEBHOOKS_DEFAULTS, ...file, allowHosts: Object.freeze([...(file?.allowHosts ?? [])]) });
}

/** Why an `allowHosts` entry is not an address or a CIDR; undefined when it is one. */
export function allowHostProblem(entry: string): string | undefined {
  const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
  return valid ? undefined : 'must be an IP address or a CIDR such as "127.0.0.1" or "10.0.0.0/8"';
}

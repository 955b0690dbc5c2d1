import { readFileSync } from 'node:fs';
import { type Static, Type } from '@sinclair/typebox';
import { Value, type ValueError, ValueErrorType } from '@sinclair/typebox/value';
import { ACTIVITY_DEFAULTS, type ActivityConfig, ActivitySchema } from './activity/activity-config.js';
import { parseRate, type Rate } from './domain/money.js';
import { trustedProxyProblem } from './limits/client-id.js';
import { type LimitsConfig, LimitsSchema } from './limits/limits-config.js';
import { buildMarketbobConfig, type MarketbobConfig, MarketbobSchema } from './marketbob/marketbob-config.js';
import { type ServerLimits, ServerSchema } from './server/server-limits.js';
import { LICENSES_DEFAULTS, type LicensesConfig, LicensesSchema } from './signing/licenses-config.js';
import { jsonSyntaxProblem } from './start-errors.js';
import { DEFAULT_POSTGRES_TIMEOUTS, type PostgresTimeouts, type StoreLocation } from './store/store-location.js';
import { languages } from './variants/languages.js';
import { marketbobVariantTexts } from './variants/marketbob-variant-texts.js';
import { CurrencySchema, type VariantConfig, VariantSchema } from './variants/variant-config.js';
import { checkBrand } from './web/workspace-brand.js';
import { WorkspaceSchema, type WorkspaceSettings } from './web/workspace-config.js';
import {
  allowHostProblem,
  WebhooksSchema,
  type WebhooksSettings,
  webhooksSettings,
} from './webhooks/webhooks-config.js';

/** The configuration file's shape (SPEC 4): one schema, the type derived from it. */
export const ConfigFileSchema = Type.Object(
  {
    $comment: Type.Optional(Type.String()),
    storeCurrency: Type.Optional(CurrencySchema),
    support: Type.Optional(Type.Boolean()),
    variants: Type.Optional(Type.Array(VariantSchema, { minItems: 1 })),
    server: Type.Optional(ServerSchema),
    trustProxy: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'Addresses or CIDRs (or loopback, linklocal, uniquelocal) of the proxies whose X-Forwarded-For is believed',
      }),
    ),
    limits: Type.Optional(LimitsSchema),
    keyRotationGraceSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 30 * 24 * 3600,
        description: 'How long a replaced API key keeps working after a rotation; 0 stops it at once',
      }),
    ),
    workspace: Type.Optional(WorkspaceSchema),
    activity: Type.Optional(ActivitySchema),
    marketbob: Type.Optional(MarketbobSchema),
    webhooks: Type.Optional(WebhooksSchema),
    licenses: Type.Optional(LicensesSchema),
  },
  { additionalProperties: false },
);
export type ConfigFile = Static<typeof ConfigFileSchema>;

/**
 * The defaults, which are also the shipped example. The pt rate is an example to replace
 * with your own: the server cannot know today's exchange rate.
 */
export const defaultConfigFile = {
  storeCurrency: 'USD',
  support: true,
  variants: [
    { lang: 'en', baseUrl: '/', currency: 'USD', rate: '1' },
    { lang: 'pt', baseUrl: '/pt', currency: 'BRL', rate: '5.00' },
  ],
  server: {
    requestTimeoutSeconds: 10,
    headersTimeoutSeconds: 5,
    keepAliveTimeoutSeconds: 65,
    maxRequestsPerSocket: 10_000,
    maxConnections: 10_000,
  },
  trustProxy: [],
  limits: {
    clientFailures: { max: 1000, windowSeconds: 60 },
    keyClientFailures: { max: 1000, windowSeconds: 60 },
    keyRequests: { max: 30_000, windowSeconds: 60 },
    keyReports: { max: 60, windowSeconds: 60 },
  },
  keyRotationGraceSeconds: 0,
  workspace: {
    sessionIdleMinutes: 30,
    sessionMaxHours: 12,
    loginAttempts: { perAccount: 5, perClient: 20, windowSeconds: 900 },
  },
  activity: ACTIVITY_DEFAULTS,
  licenses: LICENSES_DEFAULTS,
} as const satisfies ConfigFile;

export interface Config {
  readonly storeCurrency: string;
  readonly support: boolean;
  readonly variants: readonly VariantConfig[];
  /** Proxies whose X-Forwarded-For is believed (Fastify's trustProxy); none by default. */
  readonly trustProxy: readonly string[];
  readonly limits: LimitsConfig;
  /** Where the limits' counters are shared; in each process when undefined. */
  readonly redis: { readonly url: string; readonly keyPrefix: string } | undefined;
  /** Seconds a replaced API key keeps working after a rotation (0: none). */
  readonly keyRotationGraceSeconds: number;
  readonly workspace: Readonly<WorkspaceSettings>;
  /** Counting how each purchase code is used (src/activity). */
  readonly activity: ActivityConfig;
  readonly server: ServerLimits;
  readonly store: StoreLocation;
  /** True when the store is the default one, which may be filled with demo data. */
  readonly storeIsDefault: boolean;
  readonly host: string;
  readonly port: number;
  readonly adminToken: string | undefined;
  readonly logLevel: string;
  readonly secretKey: string | undefined;
  /** Processes serving the port on this machine (node:cluster when more than one). */
  readonly workers: number;
  /** A port of its own for Prometheus's `/metrics` (every worker's, summed), or undefined for none. */
  readonly metricsPort: number | undefined;
  /**
   * The address METRICS_PORT listens on (METRICS_HOST): this machine only unless set, whatever
   * HOST is, since the port answers without a token.
   */
  readonly metricsHost: string;
  /** A MarketBob marketplace's database to serve (MARKETBOB_DATABASE_URL or `marketbob`), or undefined for none. */
  readonly marketbob: MarketbobConfig | undefined;
  /** Signed webhooks: where they may go, how they are retried (src/webhooks). */
  readonly webhooks: WebhooksSettings;
  /** Offline license tokens and how long replaced signing keys stay published (src/signing). */
  readonly licenses: LicensesConfig;
}

/** Thrown with every problem found, one line each; the server never starts half-configured. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/marketplace.db';
export const DEFAULT_POOL_SIZE = 10;
const MAX_POOL_SIZE = 1000;
const MAX_WORKERS = 256;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Readonly<Record<string, string | undefined>>;

function parseBaseUrl(baseUrl: string): { host: string | undefined; prefix: string } | string {
  if (baseUrl.startsWith('/')) {
    if (/[?#\s]/.test(baseUrl) || baseUrl.includes('//')) return 'must be a plain path such as "/pt"';
    return { host: undefined, prefix: baseUrl.replace(/\/+$/, '') };
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return 'must start with "/" or be an http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (url.search || url.hash || url.username || url.password) return 'must hold only a host and a path';
  return { host: url.host.toLowerCase(), prefix: url.pathname.replace(/\/+$/, '') };
}

/** A whole number from `min` to `max` read from the environment, or the default when unset. */
function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (/^\d+$/.test(text) && value >= min && value <= max) return value;
  problems.push(`${name}: must be a whole number from ${min} to ${max}`);
  return fallback;
}

function parseStore(url: string, poolSize: number, timeouts: PostgresTimeouts): StoreLocation | string {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return path
      ? { kind: 'sqlite', path }
      : 'DATABASE_URL: sqlite: needs a file path, such as sqlite:./data/marketplace.db';
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://'))
    return { kind: 'postgres', url, poolSize, ...timeouts };
  return 'DATABASE_URL: must be sqlite:<path> or postgres://...';
}

function readConfigFile(env: Env, problems: string[]): unknown {
  const path = env.MARKETPLACE_CONFIG;
  if (!path) return defaultConfigFile;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    problems.push(`MARKETPLACE_CONFIG: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    problems.push(`${path}: ${jsonSyntaxProblem(text, error as Error)}`);
    return undefined;
  }
}

/**
 * Checks the file against its schema, one problem per line, and returns the parts that passed
 * (a key with a problem left out, so its default stands in; a variant with one dropped), so that
 * the checks after the schema's (base URLs, rates, proxies) report their problems in the same run:
 * every mistake of a file is reported at once. `valid` says whether the whole file passed.
 */
function validateFile(raw: unknown, problems: string[]): CheckedFile | undefined {
  if (raw === undefined) return undefined;
  const errors = [...Value.Errors(ConfigFileSchema, raw)];
  if (errors.length === 0) return { file: raw as ConfigFile, valid: true, rejectedVariants: new Map() };
  const required = new Set(errors.filter((e) => e.type === ValueErrorType.ObjectRequiredProperty).map((e) => e.path));
  for (const error of errors) {
    // A missing key is one problem, not also "Expected integer" at the same place.
    if (required.has(error.path) && error.type !== ValueErrorType.ObjectRequiredProperty) continue;
    const where = error.path ? error.path.slice(1).replaceAll('/', '.') : '(file)';
    problems.push(`${where}: ${describeSchemaError(error)}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const badKeys = new Set(errors.map((error) => error.path.split('/')[1] ?? ''));
  const passed: Record<string, unknown> = Object.fromEntries(Object.entries(raw).filter(([key]) => !badKeys.has(key)));
  const variants = (raw as { variants?: unknown }).variants;
  const rejectedVariants = new Map<number, RejectedVariant>();
  if (Array.isArray(variants)) {
    // A bad variant leaves a hole (null), so the others keep their index in what is reported.
    const checked = variants.map((variant) => (Value.Check(VariantSchema, variant) ? variant : null));
    checked.forEach((variant, index) => {
      const given: unknown = variants[index];
      if (variant !== null || given === null || typeof given !== 'object' || Array.isArray(given)) return;
      // Its fields the schema did not fault are checked further too: one round shows every mistake.
      const faulted = new Set(
        errors
          .filter((error) => error.path.startsWith(`/variants/${index}/`))
          .map((error) => error.path.split('/')[3] ?? ''),
      );
      rejectedVariants.set(index, { given: given as Record<string, unknown>, faulted });
    });
    if (checked.some((variant) => variant !== null) || rejectedVariants.size > 0) passed.variants = checked;
  }
  return { file: passed as ConfigFile, valid: false, rejectedVariants };
}

/** A variant the schema refused: what was given, and which of its fields the schema faulted. */
interface RejectedVariant {
  readonly given: Readonly<Record<string, unknown>>;
  readonly faulted: ReadonlySet<string>;
}

interface CheckedFile {
  readonly file: ConfigFile;
  readonly valid: boolean;
  /** By index: the variants the schema refused (holes in `file.variants`). */
  readonly rejectedVariants: ReadonlyMap<number, RejectedVariant>;
}

/**
 * The checks after the schema's, on a variant the schema refused: its base URL and its rate,
 * when they are of the right type and the schema did not fault them already.
 */
function checkRejectedVariant(
  index: number,
  rejected: RejectedVariant,
  storeCurrency: string,
  problems: string[],
): void {
  const { given, faulted } = rejected;
  const name = `variants[${index}] (${typeof given.lang === 'string' ? given.lang : '?'})`;
  if (typeof given.baseUrl === 'string' && given.baseUrl !== '' && !faulted.has('baseUrl')) {
    const base = parseBaseUrl(given.baseUrl);
    if (typeof base === 'string') problems.push(`${name}.baseUrl: ${base}`);
  }
  if (typeof given.rate === 'string' && !faulted.has('rate')) {
    if (!parseRate(given.rate)) problems.push(`${name}.rate: must be a positive decimal such as "5.25"`);
  } else if (
    given.rate === undefined &&
    typeof given.currency === 'string' &&
    !faulted.has('currency') &&
    given.currency !== storeCurrency
  ) {
    problems.push(
      `${name}.rate: required, because the variant's currency ${given.currency} differs from storeCurrency ${storeCurrency}`,
    );
  }
}

/** TypeBox's message, with what it leaves out: the allowed values of a choice, the key meant by a misspelt one. */
function describeSchemaError(error: ValueError): string {
  if (error.type === ValueErrorType.Union) {
    const allowed = (error.schema.anyOf as { const?: unknown }[] | undefined)?.map((option) => option.const) ?? [];
    if (allowed.length > 0 && allowed.every((value) => value !== undefined)) {
      return `Expected one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
    }
  }
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const key = error.path.split('/').at(-1) ?? '';
    const known = Object.keys((error.schema.properties as Record<string, unknown> | undefined) ?? {}).filter(
      (name) => !name.startsWith('$'),
    );
    const nearest = nearestKey(key, known);
    return nearest === undefined
      ? `Unexpected property (known here: ${known.join(', ')})`
      : `Unexpected property; did you mean "${nearest}"?`;
  }
  return error.message;
}

/** The known key a misspelt one most likely meant: within two edits (or a third of its length), ignoring case. */
function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (distance <= Math.max(2, Math.floor(name.length / 3)) && (!best || distance < best.distance)) {
      best = { name, distance };
    }
  }
  return best?.name;
}

/** Levenshtein distance (insertions, deletions, substitutions), over two short keys. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

function buildVariants(
  file: ConfigFile,
  storeCurrency: string,
  problems: string[],
  rejected: ReadonlyMap<number, RejectedVariant> = new Map(),
): VariantConfig[] {
  const variants: VariantConfig[] = [];
  const seen = new Map<string, number>();
  // After a schema problem, a bad variant is a null hole (validateFile).
  const given: readonly (ConfigFile['variants'] & object)[number][] = file.variants ?? defaultConfigFile.variants;
  (given as readonly ((typeof given)[number] | null)[]).forEach((variant, index) => {
    if (variant === null) {
      const refused = rejected.get(index);
      if (refused !== undefined) checkRejectedVariant(index, refused, storeCurrency, problems);
      return;
    }
    const name = `variants[${index}] (${variant.lang})`;
    const base = parseBaseUrl(variant.baseUrl);
    // A bad base URL does not hide the variant's other problems: its rate is checked too.
    if (typeof base === 'string') problems.push(`${name}.baseUrl: ${base}`);
    let rate: Rate | undefined;
    if (variant.rate !== undefined) {
      rate = parseRate(variant.rate);
      if (!rate) problems.push(`${name}.rate: must be a positive decimal such as "5.25"`);
    } else if (variant.currency === storeCurrency) {
      rate = parseRate('1');
    } else {
      problems.push(
        `${name}.rate: required, because the variant's currency ${variant.currency} differs from storeCurrency ${storeCurrency}`,
      );
    }
    if (typeof base === 'string') return;
    const place = `${base.host ?? '*'}${base.prefix || '/'}`;
    const earlier = seen.get(place);
    if (earlier !== undefined) {
      problems.push(`${name}.baseUrl: variants[${earlier}] already serves ${place}`);
      return;
    }
    seen.set(place, index);
    if (rate) {
      variants.push({
        lang: variant.lang,
        texts: variant.shape === 'marketbob' ? marketbobVariantTexts(variant.lang) : languages[variant.lang],
        baseUrl: variant.baseUrl,
        host: base.host,
        prefix: base.prefix,
        currency: variant.currency,
        rate,
        shape: variant.shape ?? 'contract',
      });
    }
  });
  return variants;
}

function buildServerLimits(file: ConfigFile, problems: string[]): ServerLimits {
  const given = { ...defaultConfigFile.server, ...file.server };
  const ms = (seconds: number) => Math.round(seconds * 1000);
  if (given.headersTimeoutSeconds > given.requestTimeoutSeconds) {
    problems.push('server.headersTimeoutSeconds: must not be more than server.requestTimeoutSeconds');
  }
  return Object.freeze({
    requestTimeoutMs: ms(given.requestTimeoutSeconds),
    headersTimeoutMs: ms(given.headersTimeoutSeconds),
    keepAliveTimeoutMs: ms(given.keepAliveTimeoutSeconds),
    maxRequestsPerSocket: given.maxRequestsPerSocket,
    maxConnections: given.maxConnections,
  });
}

function parseRedis(env: Env, problems: string[]): Config['redis'] {
  const url = env.REDIS_URL?.trim();
  if (!url) return undefined;
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = '';
  }
  // The URL itself is never repeated: it may hold a password.
  if (protocol !== 'redis:' && protocol !== 'rediss:') problems.push('REDIS_URL: must be a redis:// or rediss:// URL');
  return { url, keyPrefix: env.REDIS_KEY_PREFIX?.trim() || 'marketplace:' };
}

/** Reads the optional config file and the environment over it; throws a ConfigError listing every problem. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const checked = validateFile(readConfigFile(env, problems), problems);
  const file = checked?.file;
  const storeCurrency = file?.storeCurrency ?? defaultConfigFile.storeCurrency;
  const variants = file ? buildVariants(file, storeCurrency, problems, checked?.rejectedVariants) : [];
  const server = file ? buildServerLimits(file, problems) : undefined;

  const databaseUrl = env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
  const poolSize = wholeNumber(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 1, MAX_POOL_SIZE, problems);
  const timeouts: PostgresTimeouts = {
    statementTimeoutMs: wholeNumber(
      env,
      'DATABASE_STATEMENT_TIMEOUT_MS',
      DEFAULT_POSTGRES_TIMEOUTS.statementTimeoutMs,
      100,
      600_000,
      problems,
    ),
    connectTimeoutMs: wholeNumber(
      env,
      'DATABASE_CONNECT_TIMEOUT_MS',
      DEFAULT_POSTGRES_TIMEOUTS.connectTimeoutMs,
      100,
      60_000,
      problems,
    ),
  };
  const store = parseStore(databaseUrl, poolSize, timeouts);
  if (typeof store === 'string') problems.push(store);

  const port = Number(env.PORT ?? '8080');
  if (!/^\d+$/.test(env.PORT ?? '8080') || port > 65535) problems.push('PORT: must be a whole number from 0 to 65535');
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')}`);
  const secretKey = env.SECRET_KEY || undefined;
  if (secretKey !== undefined && secretKey.length < 32) problems.push('SECRET_KEY: must be at least 32 characters');
  if (typeof store !== 'string' && store.kind === 'postgres' && secretKey === undefined) {
    problems.push('SECRET_KEY: required with PostgreSQL, and the same for every instance');
  }
  const workers = wholeNumber(env, 'WORKERS', 1, 1, MAX_WORKERS, problems);
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) problems.push('ADMIN_TOKEN: must be at least 16 characters');
  const metricsPortText = env.METRICS_PORT?.trim() || undefined;
  const metricsPort = metricsPortText === undefined ? undefined : Number(metricsPortText);
  if (metricsPortText !== undefined && (!/^\d+$/.test(metricsPortText) || (metricsPort as number) > 65535)) {
    problems.push('METRICS_PORT: must be a whole number from 0 to 65535');
  }

  const trustProxy = file?.trustProxy ?? [];
  trustProxy.forEach((entry, index) => {
    const problem = trustedProxyProblem(entry);
    if (problem) problems.push(`trustProxy[${index}]: ${problem}`);
  });
  (file?.webhooks?.allowHosts ?? []).forEach((entry, index) => {
    const problem = allowHostProblem(entry);
    if (problem) problems.push(`webhooks.allowHosts[${index}]: ${problem}`);
  });
  const redis = parseRedis(env, problems);
  const marketbob = buildMarketbobConfig(file?.marketbob, env, problems);
  const brand = checkBrand(file?.workspace?.brand, env.MARKETPLACE_CONFIG, problems);

  if (problems.length > 0 || !checked?.valid || !file || !server || typeof store === 'string') {
    throw new ConfigError(problems);
  }
  return Object.freeze({
    storeCurrency,
    support: file.support ?? defaultConfigFile.support,
    variants: Object.freeze(variants),
    trustProxy: Object.freeze([...trustProxy]),
    limits: Object.freeze({ ...defaultConfigFile.limits, ...file.limits }),
    redis,
    keyRotationGraceSeconds: file.keyRotationGraceSeconds ?? defaultConfigFile.keyRotationGraceSeconds,
    workspace: Object.freeze({ ...defaultConfigFile.workspace, ...file.workspace, brand }),
    activity: Object.freeze({ ...defaultConfigFile.activity, ...file.activity }),
    server,
    store,
    storeIsDefault: !env.DATABASE_URL?.trim(),
    host: env.HOST?.trim() || '127.0.0.1',
    port,
    adminToken,
    logLevel,
    secretKey,
    workers,
    metricsPort,
    metricsHost: env.METRICS_HOST?.trim() || '127.0.0.1',
    marketbob,
    webhooks: webhooksSettings(file.webhooks),
    licenses: Object.freeze({ ...defaultConfigFile.licenses, ...file.licenses }),
  });
}

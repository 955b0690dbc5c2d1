import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

function withFile(contents: unknown, env: Record<string, string> = {}) {
  const path = join(mkdtempSync(join(tmpdir(), 'config-')), 'config.json');
  writeFileSync(path, typeof contents === 'string' ? contents : JSON.stringify(contents));
  return { MARKETPLACE_CONFIG: path, ...env };
}

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('config was accepted');
}

describe('loadConfig', () => {
  it('defaults to the shipped example: en at /, pt at /pt in BRL at 5.00, SQLite in ./data', () => {
    const config = loadConfig({});
    expect(config.variants.map((v) => [v.lang, v.host, v.prefix, v.currency])).toEqual([
      ['en', undefined, '', 'USD'],
      ['pt', undefined, '/pt', 'BRL'],
    ]);
    expect(config.variants[1]?.rate).toEqual({ numerator: 500n, scale: 100n });
    expect(config.store).toEqual({ kind: 'sqlite', path: './data/marketplace.db' });
    expect(config.storeIsDefault).toBe(true);
    expect([config.host, config.port, config.logLevel, config.support]).toEqual(['127.0.0.1', 8080, 'info', true]);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('takes the environment over the file', () => {
    const config = loadConfig(
      withFile(
        { support: false, variants: [{ lang: 'pt', baseUrl: 'https://API.example.com.br/v1/', currency: 'USD' }] },
        { DATABASE_URL: 'sqlite:/tmp/x.db', HOST: '0.0.0.0', PORT: '9000', LOG_LEVEL: 'warn' },
      ),
    );
    expect(config.support).toBe(false);
    expect(config.variants.map((v) => [v.lang, v.host, v.prefix, v.rate])).toEqual([
      ['pt', 'api.example.com.br', '/v1', { numerator: 1n, scale: 1n }],
    ]);
    expect([config.store, config.storeIsDefault, config.host, config.port, config.logLevel]).toEqual([
      { kind: 'sqlite', path: '/tmp/x.db' },
      false,
      '0.0.0.0',
      9000,
      'warn',
    ]);
  });

  it('lists every problem, one line each, and never starts half-configured', () => {
    const problems = problemsOf(
      withFile(
        {
          storeCurrency: 'usd',
          colour: 'blue',
          variants: [
            { lang: 'en', baseUrl: '/', currency: 'USD' },
            { lang: 'pt', baseUrl: '/', currency: 'BRL', rate: '5' },
          ],
        },
        { PORT: 'eighty', LOG_LEVEL: 'loud' },
      ),
    );
    expect(problems).toEqual([
      'colour: Unexpected property (known here: storeCurrency, support, variants, server, trustProxy, limits, keyRotationGraceSeconds, workspace, activity, marketbob, webhooks, licenses)',
      "storeCurrency: Expected string to match '^[A-Z]{3}$'",
      // The schema's problems do not hide the checks after it.
      'variants[1] (pt).baseUrl: variants[0] already serves */',
      'PORT: must be a whole number from 0 to 65535',
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
    ]);
  });

  it('reports every mistake of a file at once: the allowed values, the key a misspelt one meant', () => {
    const problems = problemsOf(
      withFile({
        workspce: { sessionIdleMinutes: 10 },
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD' },
          { lang: 'fr', baseUrl: '/fr', currency: 'EUR', rate: '0.9' },
          { lang: 'pt', baseUrl: 'ftp://example.com.br/', currency: 'BRL' },
        ],
        limits: { keyRequest: { max: 1, windowSeconds: 1 }, clientFailures: { windowSeconds: 60 } },
      }),
    );
    expect(problems).toEqual([
      'workspce: Unexpected property; did you mean "workspace"?',
      'variants.1.lang: Expected one of "en", "pt"',
      'limits.keyRequest: Unexpected property; did you mean "keyRequests"?',
      'limits.clientFailures.max: Expected required property',
      'variants[2] (pt).baseUrl: must be an http(s) URL',
      "variants[2] (pt).rate: required, because the variant's currency BRL differs from storeCurrency USD",
    ]);
  });

  it('checks every field of a variant in one round, even one the schema refused: four mistakes, four lines', () => {
    const problems = problemsOf(
      withFile({
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD' },
          { lang: 'fr', baseUrl: 'ftp://example.com.br/', currency: 'euro', rate: '0' },
          { lang: 'es', baseUrl: '/es', currency: 'EUR' },
        ],
      }),
    );
    expect(problems).toEqual([
      'variants.1.lang: Expected one of "en", "pt"',
      "variants.1.currency: Expected string to match '^[A-Z]{3}$'",
      'variants.2.lang: Expected one of "en", "pt"',
      'variants[1] (fr).baseUrl: must be an http(s) URL',
      'variants[1] (fr).rate: must be a positive decimal such as "5.25"',
      "variants[2] (es).rate: required, because the variant's currency EUR differs from storeCurrency USD",
    ]);
  });

  it('says where a config file’s JSON is broken: line and column', () => {
    expect(problemsOf(withFile('{\n  "support": true,\n  "variants": [\n    { "lang": "en", }\n  ]\n}\n'))).toEqual([
      expect.stringMatching(/config\.json: not valid JSON at line 4, column 21: \S/),
    ]);
    expect(problemsOf(withFile('{\n  "support": true\n'))).toEqual([
      expect.stringMatching(/config\.json: not valid JSON at line 3, column 1: \S/),
    ]);
    const [message] = problemsOf(withFile('{ "support": tru }'));
    expect(message).toMatch(/not valid JSON at line 1, column 19: /);
    expect(message).not.toMatch(/position/);
  });

  it('refuses two variants on the same host and prefix, and a foreign currency without a rate', () => {
    const problems = problemsOf(
      withFile({
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD' },
          { lang: 'pt', baseUrl: '/', currency: 'USD' },
          { lang: 'pt', baseUrl: '/pt', currency: 'BRL' },
          { lang: 'en', baseUrl: 'https://a.example.com/', currency: 'USD' },
          { lang: 'pt', baseUrl: 'https://A.example.com', currency: 'USD' },
        ],
      }),
    );
    expect(problems).toEqual([
      'variants[1] (pt).baseUrl: variants[0] already serves */',
      "variants[2] (pt).rate: required, because the variant's currency BRL differs from storeCurrency USD",
      'variants[4] (pt).baseUrl: variants[3] already serves a.example.com/',
    ]);
  });

  it('requires SECRET_KEY with PostgreSQL, and a readable JSON file', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://127.0.0.1/test' })).toEqual([
      'SECRET_KEY: required with PostgreSQL, and the same for every instance',
    ]);
    expect(problemsOf({ DATABASE_URL: 'mysql://x' })).toEqual([
      'DATABASE_URL: must be sqlite:<path> or postgres://...',
    ]);
    const [bad] = problemsOf(withFile('{ not json'));
    expect(bad).toMatch(/config\.json: not valid JSON/);
    expect(problemsOf({ MARKETPLACE_CONFIG: '/nonexistent/config.json' })).toEqual([
      'MARKETPLACE_CONFIG: cannot read /nonexistent/config.json (ENOENT)',
    ]);
  });
});

describe('scale-out settings (issue 3)', () => {
  it('sizes the PostgreSQL pool and the workers, with defaults of 10 and 1', () => {
    const secret = { SECRET_KEY: 'x'.repeat(32) };
    expect(loadConfig({ DATABASE_URL: 'postgres://db.example.com/market', ...secret }).store).toEqual({
      kind: 'postgres',
      url: 'postgres://db.example.com/market',
      poolSize: 10,
      statementTimeoutMs: 5000,
      connectTimeoutMs: 3000,
    });
    const config = loadConfig({
      DATABASE_URL: 'postgresql://db.example.com/market',
      DATABASE_POOL_SIZE: '25',
      WORKERS: '4',
      ...secret,
    });
    expect([config.store, config.workers]).toEqual([
      {
        kind: 'postgres',
        url: 'postgresql://db.example.com/market',
        poolSize: 25,
        statementTimeoutMs: 5000,
        connectTimeoutMs: 3000,
      },
      4,
    ]);
    expect(loadConfig({}).workers).toBe(1);
  });

  it('refuses a pool size or a worker count that is not a whole number in range', () => {
    expect(problemsOf({ DATABASE_POOL_SIZE: '0', WORKERS: '0' })).toEqual([
      'DATABASE_POOL_SIZE: must be a whole number from 1 to 1000',
      'WORKERS: must be a whole number from 1 to 256',
    ]);
    expect(problemsOf({ DATABASE_POOL_SIZE: '2.5', WORKERS: 'many' })).toEqual([
      'DATABASE_POOL_SIZE: must be a whole number from 1 to 1000',
      'WORKERS: must be a whole number from 1 to 256',
    ]);
  });

  it('takes METRICS_HOST, 127.0.0.1 unless set, whatever HOST is', () => {
    expect(loadConfig({}).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0', METRICS_HOST: ' 10.1.2.3 ' }).metricsHost).toBe('10.1.2.3');
  });

  it('takes METRICS_PORT (none by default) and refuses one out of range', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadConfig({ METRICS_PORT: '0' }).metricsPort).toBe(0);
    for (const bad of ['65536', 'x', '-1', '94.5']) {
      expect(problemsOf({ METRICS_PORT: bad })).toEqual(['METRICS_PORT: must be a whole number from 0 to 65535']);
    }
  });
});

describe('the shipped example configuration', () => {
  it('is the built-in default, so the two cannot drift', async () => {
    const { readFileSync } = await import('node:fs');
    const { defaultConfigFile } = await import('../src/config.js');
    const example = JSON.parse(readFileSync(new URL('../config/marketplace.example.json', import.meta.url), 'utf8'));
    const { $comment, ...rest } = example;
    expect($comment).toMatch(/example to replace/);
    expect(rest).toEqual(defaultConfigFile);
    expect(
      loadConfig({ MARKETPLACE_CONFIG: new URL('../config/marketplace.example.json', import.meta.url).pathname })
        .variants,
    ).toEqual(loadConfig({}).variants);
  });
});

describe('loadConfig: trustProxy, limits and REDIS_URL', () => {
  it('defaults: no trusted proxy, the documented budgets, counters in each process', () => {
    const config = loadConfig({});
    expect(config.trustProxy).toEqual([]);
    expect(config.limits).toEqual({
      clientFailures: { max: 1000, windowSeconds: 60 },
      keyClientFailures: { max: 1000, windowSeconds: 60 },
      keyRequests: { max: 30000, windowSeconds: 60 },
      keyReports: { max: 60, windowSeconds: 60 },
    });
    expect(config.redis).toBeUndefined();
  });

  it('takes the file’s proxies and budgets (a budget left out keeps its default) and REDIS_URL', () => {
    const config = loadConfig(
      withFile(
        {
          trustProxy: ['10.0.0.0/8', '2001:db8::/32', 'loopback'],
          limits: { keyRequests: { max: 0, windowSeconds: 1 }, keyReports: { max: 0, windowSeconds: 60 } },
        },
        { REDIS_URL: 'redis://:secret@127.0.0.1:6379/2', REDIS_KEY_PREFIX: 'shop-a:' },
      ),
    );
    expect(config.trustProxy).toEqual(['10.0.0.0/8', '2001:db8::/32', 'loopback']);
    expect(config.limits.keyRequests).toEqual({ max: 0, windowSeconds: 1 });
    expect(config.limits.keyReports).toEqual({ max: 0, windowSeconds: 60 });
    expect(config.limits.clientFailures).toEqual({ max: 1000, windowSeconds: 60 });
    expect(config.redis).toEqual({ url: 'redis://:secret@127.0.0.1:6379/2', keyPrefix: 'shop-a:' });
  });

  it('refuses an unknown or bad budget', () => {
    const problems = problemsOf(
      withFile({
        limits: { failedAttempts: { max: 1, windowSeconds: 1 }, clientFailures: { max: -1, windowSeconds: 0 } },
      }),
    );
    expect(problems).toEqual([
      'limits.failedAttempts: Unexpected property (known here: clientFailures, keyClientFailures, keyRequests, keyReports)',
      'limits.clientFailures.max: Expected integer to be greater or equal to 0',
      'limits.clientFailures.windowSeconds: Expected integer to be greater or equal to 1',
    ]);
  });

  it('refuses a bad proxy entry and a bad REDIS_URL, without repeating the URL', () => {
    const problems = problemsOf(
      withFile(
        { trustProxy: ['10.0.0.0/8', '10.0.0.0/33', 'proxy.local'] },
        { REDIS_URL: 'http://user:hunter2@cache:6379' },
      ),
    );
    expect(problems).toEqual([
      'trustProxy[1]: "10.0.0.0/33" is not a valid CIDR (such as 10.0.0.0/8 or 2001:db8::/32)',
      'trustProxy[2]: "proxy.local" is not an IP address, a CIDR, or loopback/linklocal/uniquelocal',
      'REDIS_URL: must be a redis:// or rediss:// URL',
    ]);
  });
});

describe('PostgreSQL timeouts (issue 10)', () => {
  const secret = { SECRET_KEY: 'x'.repeat(32) };

  it('takes the statement and connection timeouts from the environment', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://db.example.com/market',
      DATABASE_STATEMENT_TIMEOUT_MS: '250',
      DATABASE_CONNECT_TIMEOUT_MS: '1500',
      ...secret,
    });
    expect(config.store).toMatchObject({ kind: 'postgres', statementTimeoutMs: 250, connectTimeoutMs: 1500 });
  });

  it('refuses timeouts that are not whole numbers in range', () => {
    expect(
      problemsOf({
        DATABASE_URL: 'postgres://db.example.com/market',
        DATABASE_STATEMENT_TIMEOUT_MS: '0',
        DATABASE_CONNECT_TIMEOUT_MS: '2s',
        ...secret,
      }),
    ).toEqual([
      'DATABASE_STATEMENT_TIMEOUT_MS: must be a whole number from 100 to 600000',
      'DATABASE_CONNECT_TIMEOUT_MS: must be a whole number from 100 to 60000',
    ]);
  });
});

import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const problemsOf = (env: Record<string, string>): readonly string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

const withFile = (marketbob: unknown): Record<string, string> => {
  const path = join(tmpdir(), `marketbob-config-${process.pid}-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(path, JSON.stringify({ marketbob }));
  return { MARKETPLACE_CONFIG: path };
};

describe('config: the marketbob section', () => {
  it('is off without a URL', () => {
    expect(loadConfig({}).marketbob).toBeUndefined();
  });

  it('takes the environment, with the defaults', () => {
    const config = loadConfig({
      MARKETBOB_DATABASE_URL: 'mysql://reader:pw@db.example.com:3306/marketbob',
      MARKETBOB_MEDIA_BASE_URL: 'https://market.example.com/',
    });
    expect(config.marketbob).toEqual({
      url: 'mysql://reader:pw@db.example.com:3306/marketbob',
      pollSeconds: 2,
      mediaBaseUrl: 'https://market.example.com',
      // No zone configured: MarketBob's own setting (general.timezone), read at the source.
      timezone: undefined,
      reconcileMinutes: 10,
      behindSeconds: 30,
    });
  });

  it('takes the file, the environment over it', () => {
    const env = withFile({
      url: 'mysql://reader@db:3306/mb',
      pollSeconds: 1,
      mediaBaseUrl: 'https://cdn.example.com/storage',
      timezone: 'America/Sao_Paulo',
      reconcileMinutes: 30,
      behindSeconds: 12,
    });
    expect(loadConfig(env).marketbob).toEqual({
      url: 'mysql://reader@db:3306/mb',
      pollSeconds: 1,
      mediaBaseUrl: 'https://cdn.example.com/storage',
      timezone: 'America/Sao_Paulo',
      reconcileMinutes: 30,
      behindSeconds: 12,
    });
    expect(loadConfig({ ...env, MARKETBOB_DATABASE_URL: 'mysql://other@db2:3306/mb' }).marketbob?.url).toBe(
      'mysql://other@db2:3306/mb',
    );
  });

  it('refuses bad values with one line each, never repeating the URL', () => {
    const problems = problemsOf({
      ...withFile({ timezone: 'Mars/Olympus', pollSeconds: 0, extra: 1 }),
    });
    expect(problems).toEqual([
      'marketbob.extra: Unexpected property (known here: url, pollSeconds, mediaBaseUrl, timezone, reconcileMinutes, behindSeconds, appKey)',
      'marketbob.pollSeconds: Expected number to be greater than 0',
    ]);
    const bad = problemsOf({
      ...withFile({ timezone: 'Mars/Olympus', mediaBaseUrl: 'ftp://x' }),
      MARKETBOB_DATABASE_URL: 'postgres://user:secret-pw@host/db',
    });
    expect(bad).toEqual([
      'MARKETBOB_DATABASE_URL: must be mysql://USER:PASS@HOST:PORT/DB',
      'marketbob.timezone: "Mars/Olympus" is not a known time zone',
      'marketbob.mediaBaseUrl: must be an http(s) URL',
    ]);
    expect(
      problemsOf(
        withFile({
          url: 'mysql://r@h:3306/db',
          mediaBaseUrl: 'https://m.example.com',
          pollSeconds: 5,
          behindSeconds: 5,
        }),
      ),
    ).toEqual(['marketbob.behindSeconds: must be more than pollSeconds (5)']);
    expect(problemsOf({ MARKETBOB_DATABASE_URL: 'mysql://r@h:3306/db' })).toEqual([
      "marketbob.mediaBaseUrl (or MARKETBOB_MEDIA_BASE_URL): required, MarketBob's APP_URL or its storage provider's public URL",
    ]);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/**
 * The container files read as text and held to what they name: routes that exist, files that
 * exist, npm start's own command, a config the server accepts. Building and running the image needs
 * an image registry or a base image made locally (deploy/make-base-image.sh), which CI has not.
 */

const ROOT = resolve(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The Dockerfile's instructions, continuation lines joined, comments left out. */
function instructions(text: string): { keyword: string; args: string; stage: number }[] {
  let stage = -1;
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      if (keyword.toUpperCase() === 'FROM') stage += 1;
      return { keyword: keyword.toUpperCase(), args: rest.join(' '), stage };
    });
}

const dockerfile = instructions(read('Dockerfile'));
const lastStage = Math.max(...dockerfile.map((instruction) => instruction.stage));
const runtime = dockerfile.filter((instruction) => instruction.stage === lastStage);

describe('the Dockerfile', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('builds in one stage and runs from another, which installs nothing', () => {
    expect(lastStage).toBeGreaterThanOrEqual(1);
    const build = dockerfile.filter((instruction) => instruction.stage < lastStage);
    expect(build.some(({ keyword, args }) => keyword === 'RUN' && /\bg\+\+/.test(args))).toBe(true);
    expect(build.some(({ keyword, args }) => keyword === 'RUN' && /tsc -p tsconfig.image.json/.test(args))).toBe(true);
    for (const { keyword, args } of runtime) {
      if (keyword === 'RUN') expect(args).not.toMatch(/apt-get|npm (ci|install)|g\+\+/);
    }
    expect(runtime.filter(({ keyword }) => keyword === 'COPY').map(({ args }) => args)).toContain(
      '--from=build /app/node_modules node_modules',
    );
  });

  it('runs as a user that is not root, with the store in the volume /data', () => {
    const users = runtime.filter(({ keyword }) => keyword === 'USER').map(({ args }) => args);
    expect(users.length).toBeGreaterThan(0);
    expect(['root', '0', '0:0']).not.toContain(users.at(-1));
    expect(runtime.filter(({ keyword }) => keyword === 'VOLUME').map(({ args }) => args)).toEqual(['/data']);
    const links = runtime.filter(({ keyword, args }) => keyword === 'RUN' && args.includes('ln -s /data /app/data'));
    expect(links).toHaveLength(1);
    // The link stands for the default store's directory, ./data under the working directory.
    expect(runtime.filter(({ keyword }) => keyword === 'WORKDIR').map(({ args }) => args)).toEqual(['/app']);
  });

  it("checks health on a route the app answers 200, and starts with npm start's command", async () => {
    const check = runtime.find(({ keyword }) => keyword === 'HEALTHCHECK');
    const path = check?.args.match(/\/[a-z]+(?=')/)?.[0];
    expect(path).toBe('/healthz');
    expect((await t.app.inject({ method: 'GET', url: path as string })).statusCode).toBe(200);

    const start: string = JSON.parse(read('package.json')).scripts.start;
    const command = JSON.parse(runtime.find(({ keyword }) => keyword === 'CMD')?.args ?? '[]') as string[];
    expect(start).toContain(`exec ${command.join(' ')}`);
    const arenas = start.match(/MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-(\d+)\}/)?.[1];
    const env = runtime.filter(({ keyword }) => keyword === 'ENV').map(({ args }) => args);
    expect(env.join(' ')).toContain(`MALLOC_ARENA_MAX=${arenas}`);
    expect(env.join(' ')).toContain('HOST=0.0.0.0');
  });

  it('copies only files that exist, and leaves the local install and store out of the context', () => {
    for (const { keyword, args } of dockerfile) {
      if (keyword !== 'COPY' || args.startsWith('--from')) continue;
      for (const source of args.split(' ').slice(0, -1)) expect(existsSync(join(ROOT, source)), source).toBe(true);
    }
    const ignored = read('.dockerignore').split('\n');
    for (const path of ['node_modules', 'dist', 'data', 'secret.key']) expect(ignored).toContain(path);
  });
});

describe('compose.yaml', () => {
  const compose = read('compose.yaml');
  const caddyfile = read('deploy/Caddyfile');

  it('runs PostgreSQL, Redis, two instances of the image and a proxy, which alone is published', () => {
    const block = compose.slice(compose.indexOf('\nservices:\n'), compose.indexOf('\nvolumes:\n'));
    const services = [...block.matchAll(/^ {2}([a-z0-9]+):$/gm)].map((match) => match[1]);
    expect(services).toEqual(['postgres', 'redis', 'app1', 'app2', 'proxy']);
    expect(compose.match(/^ {4}ports:$/gm)).toHaveLength(1);
    expect(compose).toMatch(/DATABASE_URL: postgres:\/\/marketplace:.*@postgres:5432\/marketplace/);
    expect(compose).toContain('REDIS_URL: redis://redis:6379');
  });

  it('sends to both instances, on their port, leaving out one whose /readyz fails', async () => {
    expect(caddyfile).toMatch(/reverse_proxy app1:8080 app2:8080 \{/);
    expect(caddyfile).toMatch(/health_uri \/readyz\n/);
    const t = await createTestApp('sqlite');
    try {
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it("gives the instances a config the server accepts, trusting the proxy's address", () => {
    const path = compose.match(/- \.\/(deploy\/[a-z-]+\.json):(\/app\/config\/[a-z-]+\.json):ro/);
    expect(path?.[2]).toBe(compose.match(/MARKETPLACE_CONFIG: (\S+)/)?.[1]);
    const config = loadConfig({
      MARKETPLACE_CONFIG: join(ROOT, path?.[1] as string),
      DATABASE_URL: 'postgres://marketplace:secret@postgres:5432/marketplace',
      SECRET_KEY: 'a'.repeat(64),
      REDIS_URL: 'redis://redis:6379',
    });
    expect(config.trustProxy).toEqual(['uniquelocal']);
  });
});

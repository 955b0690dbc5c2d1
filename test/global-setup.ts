import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { withDefaultUser } from '../src/store/postgres/postgres-store.js';

/**
 * Runs once before the suite: builds dist/, says whether the PostgreSQL variants run, and makes
 * sure the server TEST_POSTGRES_URL names answers, so that a wrong URL fails once, loudly, rather
 * than in every suite.
 */
export async function setup(): Promise<void> {
  buildOnce();
  ensureChromium();
  ensurePhp();
  if (!process.env.TEST_REDIS_URL?.trim()) console.log('Redis tests skipped: TEST_REDIS_URL is not set');
  if (!process.env.TEST_MARIADB_URL?.trim())
    console.log('MarketBob (MariaDB) tests skipped: TEST_MARIADB_URL is not set');
  const url = process.env.TEST_POSTGRES_URL?.trim();
  if (!url) {
    console.log('PostgreSQL tests skipped: TEST_POSTGRES_URL is not set');
    return;
  }
  const client = new pg.Client({ connectionString: withDefaultUser(url), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    const where = new URL(url);
    console.log(
      `PostgreSQL tests: on ${where.host} (PostgreSQL ${rows[0]?.server_version}), a fresh database per test file`,
    );
  } catch (error) {
    throw new Error(
      `TEST_POSTGRES_URL is set but PostgreSQL cannot be used there: ${error instanceof Error ? error.message : error}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The suites that run `npm start`, `dist/src/main.js` or the CLI run the build made here from
 * these sources. Once, before any suite: a suite that rebuilt dist/ for itself rewrote it while
 * another ran from it, which then read a module half-written ("does not provide an export").
 */
function buildOnce(): void {
  const root = new URL('..', import.meta.url);
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
}

/** Where the browser tests find Chromium: Debian's package. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * The pages are tested in a real Chromium (Debian's build: the browser builds that test tools
 * download cannot be fetched here). Installs it when missing and this user may (root with apt-get,
 * as on CI and the project's machines, about 30 s once); otherwise fails with the command to run.
 */
function ensureChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    throw new Error(`The browser tests need Chromium at ${CHROMIUM_PATH}: run \`sudo apt-get install -y chromium\``);
  }
  console.log("Chromium is missing: installing Debian's chromium package for the browser tests (about 30 s, once)");
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** Where the PHP example of docs/api.md is run: Debian's php-cli (sodium is built in). */
export const PHP_PATH = '/usr/bin/php';

/** As ensureChromium, for Debian's php-cli (a few seconds, once). */
function ensurePhp(): void {
  if (existsSync(PHP_PATH)) return;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    throw new Error(`The PHP example's test needs PHP at ${PHP_PATH}: run \`sudo apt-get install -y php-cli\``);
  }
  console.log("PHP is missing: installing Debian's php-cli package for the PHP example's test (once)");
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'php-cli'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

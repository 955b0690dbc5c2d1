import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, type Running, runCli, startNode } from '../helpers/processes.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** Colour codes of a terminal's output (ESC [ ... m). */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

const cwd = mkdtempSync(join(tmpdir(), 'marketplace-guidance-'));
const started: Running[] = [];

afterAll(() => {
  for (const server of started) server.child.kill('SIGKILL');
  rmSync(cwd, { recursive: true, force: true });
});

function start(extraEnv: Record<string, string> = {}): Running {
  const server = startNode('src/main.ts', [], { cwd, env: cleanEnv({ PORT: '0', LOG_LEVEL: 'info', ...extraEnv }) });
  started.push(server);
  return server;
}

/** The lines of the every-start banner for a port: per variant, its API, docs and workspace login. */
function addressLines(port: string): string[] {
  return [
    `marketplace-api ${VERSION} is ready.`,
    '  en (USD)',
    `    API:       http://127.0.0.1:${port}/api/`,
    `    docs:      http://127.0.0.1:${port}/docs`,
    `    workspace: http://127.0.0.1:${port}/login`,
    '  pt (BRL)',
    `    API:       http://127.0.0.1:${port}/pt/api/`,
    `    docs:      http://127.0.0.1:${port}/pt/docs`,
    `    workspace: http://127.0.0.1:${port}/pt/login`,
    'Stop with Ctrl-C.',
  ];
}

describe('a configuration with mistakes', () => {
  it('stops the start with every problem, one line each, with the allowed values and the key meant', async () => {
    const file = join(cwd, 'three-mistakes.json');
    writeFileSync(
      file,
      JSON.stringify({
        workspce: { sessionIdleMinutes: 10 },
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD' },
          { lang: 'fr', baseUrl: '/fr', currency: 'EUR', rate: '0.9' },
          { lang: 'pt', baseUrl: 'pt', currency: 'BRL' },
        ],
      }),
    );
    const server = start({ MARKETPLACE_CONFIG: file });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(
      [
        'invalid configuration:',
        '  - workspce: Unexpected property; did you mean "workspace"?',
        '  - variants.1.lang: Expected one of "en", "pt"',
        '  - variants[2] (pt).baseUrl: must start with "/" or be an http(s) URL',
        "  - variants[2] (pt).rate: required, because the variant's currency BRL differs from storeCurrency USD",
        '',
      ].join('\n'),
    );
    expect(server.stdout()).toBe('');
  });
});

describe('every start', () => {
  it('prints the URLs each time, the demo key and password only the first time; shutdown lines in order', async () => {
    const first = start();
    const [, port] = await first.waitFor(/is ready\.\n[\s\S]*?http:\/\/127\.0\.0\.1:(\d+)\/api\//);
    await first.waitFor(/purchase_code=DEMO-VALID-0001'\n={78}\n/);
    expect(first.stdout(), first.stderr()).toContain(`${addressLines(port as string).join('\n')}\n`);
    expect(first.stdout()).toMatch(/API key of "demo-seller": \w+/);
    first.child.kill('SIGTERM');
    expect(await first.exited(), first.stdout() + first.stderr()).toBe(0);

    const second = start();
    const [, again] = await second.waitFor(/is ready\.\n[\s\S]*?http:\/\/127\.0\.0\.1:(\d+)\/api\//);
    await second.waitFor(/Stop with Ctrl-C\.\n/);
    expect(second.stdout(), second.stderr()).toContain(`${addressLines(again as string).join('\n')}\n`);
    second.child.kill('SIGTERM');
    expect(await second.exited(), second.stdout() + second.stderr()).toBe(0);
    expect(second.stdout()).not.toContain('DEMO DATA');
    expect(second.stdout()).not.toContain('API key');

    // Not a terminal: JSON lines, as before; "shutting down" first, "stopped" last.
    for (const server of [first, second]) {
      const messages = server
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages.slice(-2), server.stdout()).toEqual(['shutting down: finishing requests in flight', 'stopped']);
    }
  });

  it('logs for a person on a terminal: time, level and message, no JSON; Ctrl-C stops it in order', async () => {
    // `script` gives the server a terminal; a Ctrl-C typed into it reaches the server as SIGINT.
    const loader = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
    const command = `exec ${process.execPath} --import ${loader} ${join(ROOT, 'src/main.ts')}`;
    const terminal = spawn('script', ['-qefc', command, '/dev/null'], {
      cwd,
      env: cleanEnv({ PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: `sqlite:${join(cwd, 'tty.db')}` }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    const closed = new Promise<number | null>((resolve) => terminal.once('close', resolve));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner in 30 s:\n${out}`)), 30_000);
      terminal.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('Stop with Ctrl-C.')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    terminal.stdin.write('\x03');
    expect(await closed).toBe(0);
    // The terminal echoes the Ctrl-C as ^C before the next line.
    const lines = out.replace(ANSI, '').replaceAll('\r', '').replaceAll('^C', '').split('\n');
    const logLines = lines.filter((line) => /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] [A-Z]+: /.test(line));
    expect(logLines.map((line) => line.replace(/^\[[^\]]+\] /, ''))).toEqual([
      expect.stringMatching(/^INFO: Server listening at http:\/\/127\.0\.0\.1:\d+$/),
      'INFO: shutting down: finishing requests in flight',
      'INFO: stopped',
    ]);
    expect(lines.filter((line) => line.includes('{"level"'))).toEqual([]);
  });
});

// `node dist/src/main.js` and `npm start` run the build: test/global-setup.ts made it from these sources.
describe('--version', () => {
  it('prints the version and exits 0: the server (sources, build, npm start) and the CLI', async () => {
    const env = cleanEnv({ MARKETPLACE_CONFIG: join(cwd, 'missing.json') });
    // The version starts nothing and reads no configuration (this one would fail to load).
    const server = startNode('src/main.ts', ['--version'], { cwd, env });
    expect(await server.exited()).toBe(0);
    expect(server.stdout()).toBe(`${VERSION}\n`);
    const built = await run(process.execPath, [join(ROOT, 'dist/src/main.js'), '--version'], { cwd, env });
    expect(built.stdout).toBe(`${VERSION}\n`);
    const npmStart = await run('npm', ['start', '--silent', '--', '--version'], { cwd: ROOT, env });
    expect(npmStart.stdout).toBe(`${VERSION}\n`);
    const cli = await runCli(['--version'], { cwd, env });
    expect([cli.code, cli.stdout]).toEqual([0, `${VERSION}\n`]);
  });
});

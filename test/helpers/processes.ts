import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Run the TypeScript sources directly, so tests never depend on a stale build.
export const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

export interface Running {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout, or rejects when the process exits first or time runs out. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves once stdout holds `count` lines matching `pattern`; rejects like waitFor. */
  waitForLines(pattern: RegExp, count: number, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (or signal name) once the process has exited and its output is all read. */
  exited(): Promise<number | string>;
}

/**
 * Starts one of the project's entry points (`src/main.ts`, `src/cli/main.ts`) as its own process:
 * the sources through tsx, or with `built` its compiled file in dist/ (build it first), as `npm start` runs it.
 */
export function startNode(
  entry: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; built?: boolean },
): Running {
  const program = options.built
    ? [join(ROOT, 'dist', entry.replace(/\.ts$/, '.js'))]
    : ['--import', TSX_LOADER, join(ROOT, entry)];
  const child = spawn(process.execPath, [...program, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  child.stdin.end(options.input ?? '');
  // 'close', not 'exit': it comes once the process has exited and its output has all been read,
  // so a line it wrote just before exiting is in stdout() when this resolves.
  const exit = new Promise<number | string>((resolve) => {
    child.once('close', (code, signal) => resolve(code ?? signal ?? -1));
  });
  /** Resolves with `test`'s first defined answer, checked on every chunk of stdout; rejects on exit or timeout. */
  function waitUntil<T>(test: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}\n${out}\n${err}`)), timeoutMs);
      const check = () => {
        const found = test();
        if (found !== undefined) finish(undefined, found);
      };
      const onExit = () => finish(new Error(`exited before ${what}\nstdout: ${out}\nstderr: ${err}`));
      function finish(error?: Error, found?: T) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve(found as T);
      }
      child.stdout?.on('data', check);
      child.once('exit', onExit);
      check();
    });
  }
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited: () => exit,
    waitFor: (pattern, timeoutMs = 30_000) =>
      waitUntil(() => out.match(pattern) ?? undefined, String(pattern), timeoutMs),
    async waitForLines(pattern, count, timeoutMs = 30_000) {
      const enough = () => out.split('\n').filter((line) => pattern.test(line)).length >= count || undefined;
      await waitUntil(enough, `${count} lines matching ${pattern}`, timeoutMs);
    },
  };
}

/** Runs a CLI command to its end. */
export async function runCli(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
) {
  const running = startNode('src/cli/main.ts', args, options);
  const code = await running.exited();
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

/** The environment for a child process: this one's, without anything that would pick another store or config. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  const settings = [
    'DATABASE_URL',
    'DATABASE_POOL_SIZE',
    'DATABASE_STATEMENT_TIMEOUT_MS',
    'DATABASE_CONNECT_TIMEOUT_MS',
    'MARKETPLACE_CONFIG',
    'SECRET_KEY',
    'HOST',
    'PORT',
    'LOG_LEVEL',
    'ADMIN_TOKEN',
    'WORKERS',
    'METRICS_PORT',
    'METRICS_HOST',
  ];
  for (const name of settings) {
    delete env[name];
  }
  return { ...env, ...extra };
}

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `npm start` itself (the build `npm install` made), stopped the way a process manager stops it:
 * SIGTERM to the npm process. The server must receive it, shut down cleanly, and not be left behind.
 */
// `npm start` runs dist/: test/global-setup.ts built it from these sources, so the test never runs a stale build.
describe('npm start', () => {
  it('passes SIGTERM on to the server, which stops cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'marketplace-npm-start-'));
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: cleanEnv({ DATABASE_URL: `sqlite:${join(dir, 'store.db')}`, PORT: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout.on('data', (chunk) => {
      out += chunk;
    });
    // The pipe ends once every process holding it has exited: npm, any shell, and the server.
    const outputEnded = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`output still open 30 s after start:\n${out}`)), 30_000);
      npm.stdout.once('end', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not listening in 30 s:\n${out}`)), 30_000);
      npm.stdout.on('data', () => {
        if (out.includes('Server listening at')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // What npm started (the server, or a shell around it): cleaned up below even if the test fails.
    const started = descendants(npm.pid as number);
    npm.kill('SIGTERM');
    await exited;
    try {
      // The server logs its own stop: it got the signal rather than being orphaned by the wrapper.
      await outputEnded;
      expect(out).toContain('"msg":"shutting down: finishing requests in flight"');
      expect(out).toContain('"msg":"stopped"');
    } finally {
      for (const pid of started) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone, as it should be.
        }
      }
    }
  });
});

/** Every process below `pid`, children first. */
function descendants(pid: number): number[] {
  let children: number[];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

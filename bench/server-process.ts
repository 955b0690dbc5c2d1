import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root (benchmarks run from `dist/bench/`). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Exactly what `npm start` runs: its script execs node, so the shell's pid becomes the server's. */
export function startScript(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
}

/** Runs `program` with `args` until its output matches `ready` (within `timeoutMs`), whose first group is the port. */
export function startProcess(
  [program, ...args]: [string, ...string[]],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<{ child: ChildProcess; port: number; pid: number }> {
  const child = spawn(program, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`not ready in ${timeoutMs / 1000} s: ${[program, ...args].join(' ')}\n${out}`));
    }, timeoutMs);
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const match = out.match(ready);
      if (match) {
        clearTimeout(timer);
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve({ child, port: Number(match[1]), pid: child.pid as number });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before ready:\n${out}`)));
  });
}

/** A process's memory from /proc, in MB. */
export function memoryOf(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string) => Math.round(Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? 0) / 1024);
  return { rssMb: mb('VmRSS'), peakMb: mb('VmHWM'), anonMb: mb('RssAnon'), fileMb: mb('RssFile') };
}

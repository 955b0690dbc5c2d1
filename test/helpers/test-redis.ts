import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';

/**
 * The Redis server the suite may use (keys under a random prefix per test): its Redis variants run
 * when TEST_REDIS_URL is set, and the global setup says once when they do not.
 */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL?.trim() || undefined;

/** A key prefix no other test or developer uses. */
export function randomRedisPrefix(): string {
  return `test:${randomBytes(6).toString('hex')}:`;
}

/** A port free right now on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A redis-server of the test's own, without persistence: the shared one is never stopped. */
export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  /** Freezes it (SIGSTOP): connections stay open, commands get no answer. */
  pause(): void;
  /** Lets it run again (SIGCONT). */
  resume(): void;
  /** Kills it (SIGKILL) and resolves once it has exited. */
  kill(): Promise<void>;
}

/** Starts `redis-server` on `port` and resolves once it accepts connections. */
export async function startOwnRedis(port: number): Promise<OwnRedis> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

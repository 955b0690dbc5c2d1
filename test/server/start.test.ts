import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';

const run = promisify(execFile);

/** A fresh working directory, as a newcomer's clone would be: no data folder yet. */
const cwd = mkdtempSync(join(tmpdir(), 'marketplace-start-'));
const env = cleanEnv({ PORT: '0', LOG_LEVEL: 'info' });
const started: Running[] = [];

afterAll(() => {
  for (const server of started) server.child.kill('SIGKILL');
});

function start(extraEnv: Record<string, string> = {}): Running {
  const server = startNode('src/main.ts', [], { cwd, env: { ...env, ...extraEnv } });
  started.push(server);
  return server;
}

/** Runs one printed curl line through the real curl, as a newcomer would paste it. */
async function curl(line: string): Promise<{ status: number; body: unknown }> {
  const { stdout } = await run('bash', ['-c', `${line} -w '\\n%{http_code}'`]);
  const at = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(at + 1)), body: JSON.parse(stdout.slice(0, at)) };
}

describe('npm start on a fresh clone', () => {
  it('creates the default store with demo data, prints a key and working curl lines, and stops on SIGTERM', async () => {
    const server = start();
    await server.waitFor(/purchase_code=DEMO-VALID-0001'\n={78}\n/);
    const out = server.stdout();
    expect(out).toContain('DEMO DATA');
    expect(statSync(join(cwd, 'data', 'marketplace.db')).isFile()).toBe(true);
    expect(statSync(join(cwd, 'data', 'secret.key')).mode & 0o777).toBe(0o600);
    // Every file of the store holds keys' digests and ciphertexts: its owner's alone (the process's umask is 022).
    expect(statSync(join(cwd, 'data')).mode & 0o777).toBe(0o700);
    for (const file of ['marketplace.db', 'marketplace.db-wal', 'marketplace.db-shm']) {
      expect([file, statSync(join(cwd, 'data', file)).mode & 0o777]).toEqual([file, 0o600]);
    }

    const curls = out.split('\n').filter((line) => line.trim().startsWith('curl '));
    expect(curls).toHaveLength(8);
    for (const line of curls) {
      const { status, body } = await curl(line);
      expect(status, line).toBe(200);
      expect((body as { status: string }).status).toBe(line.includes('/pt/') ? 'Sucesso' : 'success');
    }

    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
    expect(server.stdout()).toContain('"msg":"stopped"');
  });

  it('does not load or print demo data again on the next start', async () => {
    const server = start();
    await server.waitFor(/Server listening at/);
    server.child.kill('SIGINT');
    expect(await server.exited()).toBe(0);
    expect(server.stdout()).not.toContain('DEMO DATA');
  });

  it('never loads demo data into a store the user named', async () => {
    const server = start({ DATABASE_URL: `sqlite:${join(cwd, 'mine.db')}` });
    await server.waitFor(/Server listening at/);
    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
    expect(server.stdout()).not.toContain('DEMO DATA');
  });

  it('answers a request in flight when SIGTERM arrives, then exits', async () => {
    const server = start({ DATABASE_URL: `sqlite:${join(cwd, 'inflight.db')}` });
    const [, port] = await server.waitFor(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
    const body = JSON.stringify({ api_key: 'not-a-key-0123456789', purchase_code: 'ABC-1' });
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    // Half the body now: the request is in flight when the signal arrives. Node answers
    // `100 Continue` once it has read the headers and handed the request on: the server's own
    // word that the request has begun.
    socket.write(
      `POST /api/purchases/validation HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Expect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!answer.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) return;
        socket.off('data', check);
        resolve();
      };
      socket.on('data', check);
    });
    answer = '';
    socket.write(body.slice(0, 10));
    server.child.kill('SIGTERM');
    await server.waitFor(/shutting down/);
    socket.write(body.slice(10));
    const code = await server.exited();
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer).toContain('{"status":"error","msg":"Invalid request"}');
    expect(code, server.stdout()).toBe(0);
    socket.destroy();
  });

  it('refuses a bad configuration with one line per problem, before listening', async () => {
    const server = start({ PORT: 'x', LOG_LEVEL: 'loud' });
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toBe(
      'invalid configuration:\n' +
        '  - PORT: must be a whole number from 0 to 65535\n' +
        '  - LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent\n',
    );
    expect(server.stdout()).toBe('');
  });
});

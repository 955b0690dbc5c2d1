import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { createTestApp } from '../helpers/test-app.js';

/**
 * A keep-alive connection whose request is in flight when the app closes: the request is answered,
 * then the connection is closed as soon as it is idle, and the close ends. (Node would otherwise
 * keep it open for the keep-alive timeout, here an hour, and the close would wait that long.)
 */
it('answers a request in flight on a keep-alive connection, then closes it and ends the close', async () => {
  const t = await createTestApp('sqlite', { configFile: { server: { keepAliveTimeoutSeconds: 3600 } } });
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const socket = connect((t.app.server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    const ended = once(socket, 'end');
    const body = JSON.stringify({ api_key: 'not-a-key-0123456789', purchase_code: 'ABC-1' });
    // Node answers `100 Continue` once the request has been handed on: it is in flight from then.
    socket.write(
      'POST /api/purchases/validation HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Connection: keep-alive\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    while (!answer.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) await once(socket, 'data');
    answer = '';
    const closed = t.app.close();
    socket.write(body);
    await ended;
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer).toContain('\r\nConnection: keep-alive\r\nKeep-Alive: timeout=3600, max=10000\r\n');
    expect(answer.endsWith('\r\n\r\n{"status":"error","msg":"Invalid request"}')).toBe(true);
    socket.destroy();
  } finally {
    await t.close();
  }
});

import { once } from 'node:events';
import { type ClientRequest, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANSWERS_HELD_AT_MOST, AnswerWrites } from '../../src/server/answer-writes.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Answers written together: held until the end of their event-loop turn, or until
 * ANSWERS_HELD_AT_MOST wait, each then written whole to its own client; a client gone meanwhile is
 * skipped. On a real node:http server, with one connection per request.
 */

interface Held {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A server that holds its requests' responses until `count` have come, then gives them to `answer`, in arrival order. */
async function holdingServer(count: number, answer: (held: Held[]) => void): Promise<number> {
  const held: Held[] = [];
  const server = createServer((req, res) => {
    held.push({ req, res });
    if (held.length === count) answer(held);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  close = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return (server.address() as AddressInfo).port;
}

/** A request on a connection of its own; resolves with its status, content-length and body. */
function ask(port: number, path: string, method = 'GET'): { sent: ClientRequest; answer: Promise<string> } {
  const sent = request({ host: '127.0.0.1', port, path, method, agent: false });
  const answer = new Promise<string>((resolve, reject) => {
    sent.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve(`${response.statusCode} ${response.headers['content-length']} ${body}`));
    });
    sent.on('error', reject);
  });
  sent.end();
  return { sent, answer };
}

const bodyOf = (path: string) => Buffer.from(`answer to ${path}`);

describe('AnswerWrites', () => {
  it('holds answers to the end of their turn, writes them all once that many wait, and each goes to its own client', async () => {
    const count = ANSWERS_HELD_AT_MOST + 1;
    const writes = new AnswerWrites();
    const endedAfterEach: number[] = [];
    let endedAtTurnEnd = -1;
    const port = await holdingServer(count, (held) => {
      for (const { req, res } of held) {
        const body = bodyOf(req.url as string);
        res.writeHead(200, ['content-length', `${body.length}`]);
        writes.end(res, body);
        endedAfterEach.push(held.filter(({ res: each }) => each.writableEnded).length);
      }
      setImmediate(() => {
        endedAtTurnEnd = held.filter(({ res }) => res.writableEnded).length;
      });
    });
    const answers = Array.from({ length: count }, (_, index) => ask(port, `/${index}`).answer);
    const bodies = await Promise.all(answers);
    expect(bodies).toEqual(
      Array.from({ length: count }, (_, index) => `200 ${11 + `${index}`.length} answer to /${index}`),
    );
    // Nothing written while fewer than the most wait; all of them once that many do; the last at the turn's end.
    expect(endedAfterEach).toEqual([
      ...Array(ANSWERS_HELD_AT_MOST - 1).fill(0),
      ANSWERS_HELD_AT_MOST,
      ANSWERS_HELD_AT_MOST,
    ]);
    expect(endedAtTurnEnd).toBe(count);
  });

  it('writes a HEAD answer without a body, and skips a client gone before its turn ended', async () => {
    const writes = new AnswerWrites();
    let allHeld: (held: Held[]) => void = () => undefined;
    const arrived = new Promise<Held[]>((resolve) => {
      allHeld = resolve;
    });
    const port = await holdingServer(3, (held) => allHeld(held));
    const head = ask(port, '/head', 'HEAD');
    const left = ask(port, '/left');
    left.answer.catch(() => undefined);
    const kept = ask(port, '/kept');
    const held = await arrived;
    const byPath = (path: string) => held.find(({ req }) => req.url === path) as Held;
    const leftClosed = once(byPath('/left').res, 'close');
    left.sent.destroy();
    await leftClosed;
    for (const path of ['/head', '/left', '/kept']) {
      const { req, res } = byPath(path);
      const body = bodyOf(path);
      res.writeHead(200, ['content-length', `${body.length}`]);
      writes.end(res, req.method === 'HEAD' ? undefined : body);
    }
    expect(await head.answer).toBe('200 15 ');
    expect(await kept.answer).toBe('200 15 answer to /kept');
    expect(byPath('/left').res.writableEnded).toBe(false);
    expect(byPath('/kept').res.writableEnded).toBe(true);
  });
});

describe("the API's answers, held to the end of their turn", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
  });

  const GET = 'GET /api/account/details HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: not-a-key-0123456789\r\n\r\n';

  /** Writes `bytes` on a new connection, with `end` ends the client's side at once; everything the server sent until it closed. */
  async function exchange(bytes: string, end: boolean): Promise<string> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    const closed = once(socket, 'close');
    socket.write(bytes);
    if (end) socket.end();
    await closed;
    return received;
  }

  it('answers a client that ends its side right after its request', async () => {
    // A GET is answered as soon as its head is read, and Node reads the client's end right after.
    const answer = await exchange(GET, true);
    expect(answer).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
    expect(answer.endsWith('\r\n\r\n{"status":"error","msg":"Invalid request"}')).toBe(true);
  });

  it('answers a request followed by bytes that are no request, then the 400 for them', async () => {
    // A GET is answered as soon as its head is read: before Node reads on and finds the bytes after it.
    const answer = await exchange(`${GET}NOT HTTP AT ALL\r\n\r\n`, false);
    expect(answer).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
    expect(answer).toContain('\r\n\r\n{"status":"error","msg":"Invalid request"}HTTP/1.1 400 Bad Request\r\n');
    expect(answer.endsWith('\r\n\r\n{"status":"error","msg":"The request is malformed"}')).toBe(true);
  });
});

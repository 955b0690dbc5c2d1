import { connect } from 'node:net';

/** One HTTP answer read off a raw socket. */
export interface RawAnswer {
  readonly status: number;
  /** Header names in lower case; a repeated header's values joined by ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, de-chunked, as UTF-8 text. */
  readonly body: string;
  /** 'HEAD' for the answer to a HEAD request (it has no body), else undefined. */
  readonly requestMethod: string | undefined;
}

export interface RawExchange {
  readonly answers: readonly RawAnswer[];
  /** Bytes left over that were not a whole answer: '' when the server spoke only HTTP. */
  readonly trailing: string;
}

/** How long one exchange may take before it counts as a hang. A deadline, not a wait: it fails the test. */
const DEADLINE_MS = 15_000;

/**
 * A last request that makes the server close the connection once it has answered everything
 * before it. When the bytes before it leave a request unfinished, it becomes that request's body
 * or a malformed next request, and the server closes then too.
 */
const CLOSING_REQUEST = 'GET /closing-request HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';

/**
 * Writes the chunks to a fresh connection and reads every answer until the server closes.
 * `end: 'closing-request'` (the default) sends a last request with `Connection: close` after
 * them; `end: 'half-close'` closes the writing side instead, which Node's server takes as the
 * client going away: a request still in progress is then abandoned, unanswered. `localAddress`
 * sends from another loopback address (another client to the server). Rejects when the
 * server neither answers nor closes within the deadline.
 */
export function rawExchange(
  port: number,
  chunks: readonly (string | Buffer)[],
  options: { headRequest?: boolean; end?: 'closing-request' | 'half-close'; localAddress?: string } = {},
): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    // From another loopback address (127.0.0.2, ...) when asked: the server sees another client.
    const socket = connect({ port, host: '127.0.0.1', localAddress: options.localAddress });
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no end of the exchange within ${DEADLINE_MS} ms; received so far:\n${Buffer.concat(received)}`),
      );
    }, DEADLINE_MS);
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.end === 'half-close') socket.end();
      else socket.write(CLOSING_REQUEST);
    });
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // The server may reset a connection it has answered and refuses to read further: what came is kept.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswers(Buffer.concat(received), options.headRequest === true));
    });
  });
}

/** Splits what the server wrote into HTTP/1.1 answers. */
export function parseAnswers(bytes: Buffer, headRequest: boolean): RawExchange {
  const answers: RawAnswer[] = [];
  let rest = bytes;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n');
    const statusLine = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
    if (!statusLine) break;
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    let after = rest.subarray(end + 4);
    if (Number(statusLine[1]) < 200) {
      // An interim answer (100 Continue) has no body; the real one follows.
      rest = after;
      continue;
    }
    // Only the first answer can be the HEAD request's: anything after it answers the bytes that
    // followed. And a HEAD the server could not parse is answered with a body, as it never knew the
    // method: a JSON body (never the start of another answer) follows then.
    const head = headRequest && answers.length === 0 && after[0] !== 0x7b;
    let body: Buffer = Buffer.alloc(0);
    if (!head && headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = after.indexOf('\r\n');
        if (lineEnd === -1) return { answers, trailing: rest.toString('latin1') };
        const size = Number.parseInt(after.subarray(0, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size) || after.length < lineEnd + 2 + size + 2)
          return { answers, trailing: rest.toString('latin1') };
        parts.push(after.subarray(lineEnd + 2, lineEnd + 2 + size));
        after = after.subarray(lineEnd + 2 + size + 2);
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else if (!head) {
      const length = Number(headers['content-length'] ?? 0);
      if (after.length < length) break;
      body = after.subarray(0, length);
      after = after.subarray(length);
    }
    answers.push({
      status: Number(statusLine[1]),
      headers,
      body: body.toString('utf8'),
      requestMethod: head ? 'HEAD' : undefined,
    });
    rest = after;
  }
  return { answers, trailing: rest.toString('latin1') };
}

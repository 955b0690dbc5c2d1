import { connect } from 'node:net';

/** What came back on a raw connection: the parsed answer (if any) and whether the server closed it. */
export interface RawAnswer {
  /** 0 when no answer came before the connection closed. */
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** True when the server ended the connection (rather than the client). */
  readonly closedByServer: boolean;
}

/**
 * Writes `chunks` on a fresh connection to a listening server and reads until the server closes it;
 * with `abortAfterWrite`, the client drops the connection itself as soon as everything is written
 * and the answer is whatever had come by then. For what `inject` cannot do: bodies that never end,
 * lying `Content-Length`, raw bytes.
 */
export function rawExchange(
  port: number,
  chunks: readonly (string | Buffer)[],
  options: { abortAfterWrite?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let closedByServer = false;
    socket.on('data', (data) => received.push(data));
    socket.on('end', () => {
      closedByServer = true;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(received).toString('utf8'), closedByServer)));
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.abortAfterWrite) socket.destroy();
    });
  });
}

function parseAnswer(text: string, closedByServer: boolean): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return { status: 0, headers: {}, body: '', closedByServer };
  const [statusLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4), closedByServer };
}

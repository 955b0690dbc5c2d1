import type { ClientRequest, IncomingHttpHeaders } from 'node:http';

/** What a server answered: the status, the headers and the whole body as text. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * The answer to `outgoing`, read whole; rejects on a request or response error. The caller writes
 * and ends the request as its test needs (at once, or in slow pieces).
 */
export function answerTo(outgoing: ClientRequest): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    outgoing.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
  });
}

/**
 * One request of an HTTP bench case, as the case's request file holds it: one request a line,
 * read by bench/wrk-requests.lua (wrk's load), by the contract floor (to collect the real
 * server's answers) and by the bench itself (the comparison servers' canned answers).
 */
export interface BenchRequest {
  readonly method: 'GET' | 'POST';
  /** Path and query string. */
  readonly path: string;
  /** Sent in `X-Api-Key`. */
  readonly apiKey: string;
  /** The body's media type, `''` with no body. */
  readonly contentType: string;
  readonly body: string;
}

// A multipart body has CRLFs and a line is one request: the body's backslashes, tabs, CRs and LFs
// are escaped (`\\`, `\t`, `\r`, `\n`), and the Lua script undoes it once, in its init.
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\r': '\\r', '\n': '\\n' };
const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', r: '\r', n: '\n' };

/** Fields separated by tabs: method, path, API key, content type, body (escaped). */
export function formatRequestLine(request: BenchRequest): string {
  const body = request.body.replace(/[\\\t\r\n]/g, (char) => ESCAPES[char] as string);
  return `${request.method}\t${request.path}\t${request.apiKey}\t${request.contentType}\t${body}`;
}

export function parseRequestLine(line: string): BenchRequest {
  const [method, path, apiKey, contentType = '', body = ''] = line.split('\t');
  if ((method !== 'GET' && method !== 'POST') || !path || !apiKey) throw new Error(`not a bench request: ${line}`);
  return {
    method,
    path,
    apiKey,
    contentType,
    body: body.replace(/\\(.)/g, (_, char: string) => UNESCAPES[char] ?? char),
  };
}

export const get = (path: string, apiKey: string): BenchRequest => ({
  method: 'GET',
  path,
  apiKey,
  contentType: '',
  body: '',
});

/** The three bodies a POST takes (SPEC 2.1), each as a client library sends it. */
export type BodyKind = 'json' | 'form' | 'multipart';

const MULTIPART_BOUNDARY = '------------------------bench0123456789';

export function post(path: string, apiKey: string, kind: BodyKind, fields: Record<string, string>): BenchRequest {
  switch (kind) {
    case 'json':
      return { method: 'POST', path, apiKey, contentType: 'application/json', body: JSON.stringify(fields) };
    case 'form':
      return {
        method: 'POST',
        path,
        apiKey,
        contentType: 'application/x-www-form-urlencoded',
        body: new URLSearchParams(fields).toString(),
      };
    case 'multipart': {
      // As PHP's curl writes a POST given an array: one part per field, no files.
      let body = '';
      for (const [name, value] of Object.entries(fields)) {
        body += `--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      }
      body += `--${MULTIPART_BOUNDARY}--\r\n`;
      return {
        method: 'POST',
        path,
        apiKey,
        contentType: `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`,
        body,
      };
    }
  }
}

/** The body kind a `Content-Type` names, or undefined for any other (or none). */
export function bodyKindOf(contentType: string | undefined): BodyKind | undefined {
  if (contentType === undefined) return undefined;
  if (contentType.startsWith('application/json')) return 'json';
  if (contentType.startsWith('application/x-www-form-urlencoded')) return 'form';
  if (contentType.startsWith('multipart/form-data')) return 'multipart';
  return undefined;
}

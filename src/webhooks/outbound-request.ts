import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/**
 * Posting to a seller's URL without letting it reach what it should not (SSRF): the URL's host is
 * resolved by the agent at connect time, and an address that is private, loopback, link-local,
 * reserved or a metadata address (169.254.169.254 is link-local) is refused before any byte is
 * sent, so a DNS name that points inside (`localhost`, a rebinding name) is refused as well as a
 * literal address. `allowHosts` (addresses or CIDRs) lets exactly those through. Redirects are
 * never followed (node:http does not), so a public URL cannot bounce the request inside either.
 * The answer's body is read to a small cap and only a sanitised excerpt is ever kept.
 */

export interface OutboundOptions {
  readonly allowHttp: boolean;
  readonly allowHosts: readonly string[];
}

/** Why a URL is not one webhooks may be sent to; undefined when it is. */
export function endpointUrlProblem(url: string, options: OutboundOptions): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && !(options.allowHttp && parsed.protocol === 'http:')) {
    return options.allowHttp ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (parsed.username || parsed.password) return 'must not hold a user name or password';
  if (parsed.hash) return 'must not hold a fragment';
  if (url.length > 2000) return 'must be at most 2000 characters';
  return undefined;
}

/** What one POST came to. */
export interface OutboundResult {
  /** The answer's status; 0 when there was none. */
  readonly status: number;
  /** True for a 2xx answer. */
  readonly ok: boolean;
  /** '' on success; a short description otherwise, with at most a sanitised excerpt of the body. */
  readonly error: string;
}

/** How much of an answer's body is read: enough for a short excerpt. */
const BODY_CAP_BYTES = 1024;
const EXCERPT_CHARS = 120;

/** Printable text only, one line, cut short: a receiver's body is never shown as it came. */
export function sanitizeExcerpt(bytes: Buffer): string {
  return bytes
    .toString('utf8')
    .replace(/[^\p{L}\p{N}\p{P}\p{Zs}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, EXCERPT_CHARS);
}

/** The agents of one service, reused for every attempt. */
export class OutboundClient {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(private readonly options: OutboundOptions) {
    const filter = { allowIPAddressList: [...options.allowHosts], keepAlive: false };
    this.httpAgent = new RequestFilteringHttpAgent(filter);
    this.httpsAgent = new RequestFilteringHttpsAgent(filter);
  }

  /** POSTs the body with these headers; never throws. */
  post(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
    timeoutMs: number,
  ): Promise<OutboundResult> {
    const problem = endpointUrlProblem(url, this.options);
    if (problem !== undefined) return Promise.resolve({ status: 0, ok: false, error: `refused: the URL ${problem}` });
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const payload = Buffer.from(body, 'utf8');
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: OutboundResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = (secure ? https : http).request(target, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(payload.length),
          'user-agent': 'marketplace-api-webhooks',
        },
      });
      const timer = setTimeout(() => {
        finish({ status: 0, ok: false, error: `timed out after ${timeoutMs / 1000} s` });
        request.destroy();
      }, timeoutMs);
      request.on('error', (error) => finish({ status: 0, ok: false, error: describeError(error) }));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const ok = status >= 200 && status < 300;
          if (ok) return finish({ status, ok, error: '' });
          const redirect = status >= 300 && status < 400 ? 'a redirect, not followed' : `HTTP ${status}`;
          const excerpt = sanitizeExcerpt(Buffer.concat(chunks));
          finish({ status, ok, error: excerpt === '' ? redirect : `${redirect}: ${excerpt}` });
        };
        response.on('data', (chunk: Buffer) => {
          if (size >= BODY_CAP_BYTES) return;
          chunks.push(chunk.subarray(0, BODY_CAP_BYTES - size));
          size += chunk.length;
          // Enough read: the rest is not waited for.
          if (size >= BODY_CAP_BYTES) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', () => done());
        response.on('close', done);
      });
      request.end(payload);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** A connection error as a short phrase: its code, or the agent's refusal; never a stack. */
function describeError(error: Error): string {
  if (/is not allowed/.test(error.message)) {
    return 'refused: the address is private, loopback, link-local or reserved';
  }
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `could not connect (${code})` : 'could not connect';
}

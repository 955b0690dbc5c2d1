import { lookup as dnsCallbackLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/**
 * Posting to a seller's URL without letting it reach what it should not (SSRF): the URL's host is
 * resolved by the agent at connect time, and an address that is private, loopback, link-local,
 * reserved or a metadata address (169.254.169.254 is link-local) is refused before any byte is
 * sent, so a DNS name that points inside (`localhost`, a rebinding name) is refused as well as a
 * literal address (see `addressRefused` for the ranges). `allowHosts` (addresses or CIDRs) lets exactly those through. Redirects are
 * never followed (node:http does not), so a public URL cannot bounce the request inside either.
 * The answer's body is read to a small cap and only a sanitised excerpt is ever kept.
 */

export interface OutboundOptions {
  readonly allowHttp: boolean;
  readonly allowHosts: readonly string[];
}

/** What can be wrong with an endpoint's URL itself, for the surfaces that word it in their own language. */
export type UrlProblemCode = 'absolute' | 'scheme' | 'https' | 'credentials' | 'fragment' | 'length';

/** The English phrase of each (the admin API, the CLI, the deliveries' stored detail). */
export const URL_PROBLEMS: Readonly<Record<UrlProblemCode, string>> = {
  absolute: 'must be an absolute URL',
  scheme: 'must be an http or https URL',
  https: 'must be an https URL',
  credentials: 'must not hold a user name or password',
  fragment: 'must not hold a fragment',
  length: 'must be at most 2000 characters',
};

/** What an attempt to an address outside the allowed ones comes to (stored as the delivery's detail). */
export const PRIVATE_ADDRESS_ERROR = 'refused: the address is private, loopback, link-local or reserved';

/** Why a URL is not one webhooks may be sent to, as a code; undefined when it is one. */
export function endpointUrlCode(url: string, options: OutboundOptions): UrlProblemCode | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'absolute';
  }
  if (parsed.protocol !== 'https:' && !(options.allowHttp && parsed.protocol === 'http:')) {
    return options.allowHttp ? 'scheme' : 'https';
  }
  if (parsed.username || parsed.password) return 'credentials';
  if (parsed.hash) return 'fragment';
  if (url.length > 2000) return 'length';
  return undefined;
}

/** Why a URL is not one webhooks may be sent to; undefined when it is. */
export function endpointUrlProblem(url: string, options: OutboundOptions): string | undefined {
  const code = endpointUrlCode(url, options);
  return code === undefined ? undefined : URL_PROBLEMS[code];
}

/** Resolves a host name to its addresses, as connecting would. */
export type AddressLookup = (hostname: string) => Promise<readonly { readonly address: string }[]>;

/** How long the add-time check waits for the resolver. */
const LOOKUP_TIMEOUT_MS = 3000;

export const systemLookup: AddressLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * IPv6 addresses the internet routes: 2000::/3. Outside it lie the ranges ipaddr.js calls unicast
 * yet no public host has, the IPv4-compatible ::/96 first (::7f00:1 is 127.0.0.1 to a stack that
 * still reads it so), and blocks not yet assigned that a later use could make internal.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether connecting to this address would be refused: anything but a public unicast address,
 * unless `allowHosts` lets it through. Public means what ipaddr.js calls unicast (it names the
 * private, loopback, link-local, CGNAT, benchmarking, documentation, reserved, broadcast and
 * multicast ranges, IPv4-mapped, NAT64, 6to4, Teredo, ULA and site-local), and for IPv6 also
 * inside 2000::/3.
 */
export function addressRefused(address: string, allowHosts: readonly string[]): boolean {
  if (net.isIP(address) === 0) return true;
  const parsed = ipaddr.parse(address);
  for (const entry of allowHosts) {
    if (net.isIP(entry) !== 0) {
      if (entry === address) return false;
    } else if (ipaddr.isValidCIDR(entry)) {
      const range = ipaddr.parseCIDR(entry);
      if (parsed.kind() === range[0].kind() && parsed.match(range)) return false;
    }
  }
  if (parsed.range() !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6);
}

/** A host name lookup as node:net calls it (`lookup` of a request's options). */
export type ConnectLookup = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * The lookup deliveries connect with: the system's answer, refused whole when any address in it
 * is one `addressRefused` refuses. The agents check again with their own rule; this one holds
 * the ranges theirs lets through (the IPv4-compatible ::/96, and IPv6 outside 2000::/3).
 */
export function refusingLookup(
  allowHosts: readonly string[],
  resolve: ConnectLookup = dnsCallbackLookup as ConnectLookup,
): ConnectLookup {
  return (hostname, options, callback) => {
    resolve(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
      const refused = addresses.find((candidate) => addressRefused(candidate, allowHosts));
      if (refused === undefined) return callback(null, address, family);
      callback(refusedAddressError(refused), address, family);
    });
  };
}

/** What a refused address fails with: `describeError` words it as PRIVATE_ADDRESS_ERROR. */
const refusedAddressError = (address: string) =>
  Object.assign(new Error(`connecting to ${address} is not allowed`), { code: 'EREFUSEDADDRESS' });

/**
 * Whether the URL's host resolves, now, to an address a delivery would be refused: the check made
 * when an endpoint is added, so that a private address is refused at once rather than on every
 * attempt. A name that does not resolve now is let through (DNS may be down for a moment, or the
 * name not yet published): its deliveries are refused or retried as any other.
 */
export async function endpointAddressRefused(
  url: string,
  options: OutboundOptions,
  lookup: AddressLookup = systemLookup,
): Promise<boolean> {
  const hostname = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: readonly { readonly address: string }[];
  let timer: NodeJS.Timeout | undefined;
  try {
    // A resolver that does not answer does not hold the form up: the name counts as unresolved.
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer')), LOOKUP_TIMEOUT_MS);
    });
    addresses = net.isIP(hostname) === 0 ? await Promise.race([lookup(hostname), late]) : [{ address: hostname }];
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
  return addresses.some(({ address }) => addressRefused(address, options.allowHosts));
}

/** The start of the detail of an attempt whose URL is not allowed (the settings changed since it was added). */
export const URL_REFUSED = 'refused: the URL ';

/** Whether an attempt's detail says it was refused here, before sending: every attempt would be. */
export const isPermanentRefusal = (error: string): boolean => error.startsWith('refused: ');

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
  private readonly lookup: ConnectLookup;

  constructor(private readonly options: OutboundOptions) {
    const filter = { allowIPAddressList: [...options.allowHosts], keepAlive: false };
    this.httpAgent = new RequestFilteringHttpAgent(filter);
    this.httpsAgent = new RequestFilteringHttpsAgent(filter);
    this.lookup = refusingLookup(options.allowHosts);
  }

  /** POSTs the body with these headers; never throws. */
  post(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
    timeoutMs: number,
  ): Promise<OutboundResult> {
    const problem = endpointUrlProblem(url, this.options);
    if (problem !== undefined) return Promise.resolve({ status: 0, ok: false, error: `${URL_REFUSED}${problem}` });
    const target = new URL(url);
    // An address literal is never looked up: judged here by the same rule as a name's addresses.
    const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
    if (net.isIP(literal) !== 0 && addressRefused(literal, this.options.allowHosts)) {
      return Promise.resolve({ status: 0, ok: false, error: PRIVATE_ADDRESS_ERROR });
    }
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
        lookup: this.lookup,
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
  if (/is not allowed/.test(error.message)) return PRIVATE_ADDRESS_ERROR;
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `could not connect (${code})` : 'could not connect';
}

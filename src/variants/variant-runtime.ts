import { type ErrorKind, errorStatus } from './error-kinds.js';
import { keptBytes } from './kept-bytes.js';
import type { VariantConfig } from './variant-config.js';

/** A configured variant with everything it answers prebuilt once: error bodies, the success envelope's head. */
export interface VariantRuntime {
  /** Position among the configured variants: caches keep one serialisation per variant. */
  readonly index: number;
  readonly config: VariantConfig;
  /**
   * A whole success body: `{"status":"<ok word>",` and `head` (a route's constant, encoded once),
   * then `parts` (cached bytes as they are, texts encoded), then the closing `}`, written into one buffer.
   */
  okBody(head: string, ...parts: (Buffer | string)[]): Buffer;
  /** The same, in a buffer of its own, to be cached (see keptBytes). */
  keptOkBody(head: string, ...parts: (Buffer | string)[]): Buffer;
  /** The same success body as chunks to stream: the envelope's head, `chunks` as they come, the closing `}`. */
  okChunks(head: string, chunks: AsyncIterable<string>): AsyncIterable<string>;
  /** A whole error body: prebuilt for the catalogue's texts, built for a detailed message. */
  errorBody(kind: ErrorKind, detail?: string): Buffer;
}

const CLOSING_BRACE = 0x7d;

async function* enveloped(head: string, chunks: AsyncIterable<string>): AsyncGenerator<string> {
  yield head;
  yield* chunks;
  yield '}';
}

export function createVariantRuntime(config: VariantConfig, index: number): VariantRuntime {
  const { texts } = config;
  const errorBodyFor = (message: string) => JSON.stringify({ status: texts.statusError, msg: message });
  const prebuilt = new Map<ErrorKind, Buffer>();
  for (const kind of Object.keys(errorStatus) as ErrorKind[]) {
    prebuilt.set(kind, keptBytes(errorBodyFor(texts.messages[kind])));
  }
  const okPrefix = `{"status":${JSON.stringify(texts.statusOk)},`;
  const okHeads = new Map<string, Buffer>();
  const okBodyIn = (allocate: (size: number) => Buffer, head: string, parts: (Buffer | string)[]) => {
    let headBytes = okHeads.get(head);
    if (!headBytes) {
      headBytes = keptBytes(`${okPrefix}${head}`);
      okHeads.set(head, headBytes);
    }
    let length = headBytes.length + 1;
    for (const part of parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
    const body = allocate(length);
    let offset = headBytes.copy(body, 0);
    for (const part of parts) offset += typeof part === 'string' ? body.write(part, offset) : part.copy(body, offset);
    body[offset] = CLOSING_BRACE;
    return body;
  };
  return {
    index,
    config,
    okBody: (head, ...parts) => okBodyIn(Buffer.allocUnsafe, head, parts),
    keptOkBody: (head, ...parts) => okBodyIn(Buffer.allocUnsafeSlow, head, parts),
    okChunks: (head, chunks) => enveloped(`${okPrefix}${head}`, chunks),
    errorBody: (kind, detail) =>
      detail === undefined ? (prebuilt.get(kind) as Buffer) : Buffer.from(errorBodyFor(detail)),
  };
}

/** Strips the port from a Host header value ("api.example.com:8080" → "api.example.com"). */
function hostname(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

function hostMatches(variant: VariantConfig, host: string): boolean {
  if (variant.host === undefined) return true;
  return variant.host.includes(':') && !variant.host.startsWith('[')
    ? variant.host === host
    : variant.host === hostname(host);
}

/** Picks the variant a request belongs to, by its Host header and path. */
export interface VariantResolver {
  readonly variants: readonly VariantRuntime[];
  /** The distinct path prefixes to register routes under. */
  readonly prefixes: readonly string[];
  /** For a request routed under `prefix`: the host-specific variant, else the host-less one. */
  forPrefix(prefix: string, host: string): VariantRuntime | undefined;
  /** For any path (unknown ones included): the variant whose base matches most specifically, else the first. */
  forPath(path: string, host: string): { variant: VariantRuntime; rest: string };
}

export function createVariantResolver(configs: readonly VariantConfig[]): VariantResolver {
  const variants = configs.map((config, index) => createVariantRuntime(config, index));
  const prefixes = [...new Set(configs.map((c) => c.prefix))];
  // Most specific first: longer prefixes, then a named host before any host.
  const bySpecificity = [...variants].sort(
    (a, b) =>
      b.config.prefix.length - a.config.prefix.length ||
      Number(b.config.host !== undefined) - Number(a.config.host !== undefined),
  );
  const underPrefix = (path: string, prefix: string) =>
    prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
  return {
    variants,
    prefixes,
    forPrefix(prefix, host) {
      const lowerHost = host.toLowerCase();
      return bySpecificity.find((v) => v.config.prefix === prefix && hostMatches(v.config, lowerHost));
    },
    forPath(path, host) {
      const lowerHost = host.toLowerCase();
      const variant =
        bySpecificity.find((v) => underPrefix(path, v.config.prefix) && hostMatches(v.config, lowerHost)) ??
        (variants[0] as VariantRuntime);
      return {
        variant,
        rest: underPrefix(path, variant.config.prefix) ? path.slice(variant.config.prefix.length) : path,
      };
    },
  };
}

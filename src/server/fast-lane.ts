import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { pipeline, type Readable } from 'node:stream';
import proxyAddr from '@fastify/proxy-addr';
import { parse as parseQuery } from 'fast-querystring';
import type { FastifyBaseLogger } from 'fastify';

import secureJsonParse from 'secure-json-parse';
import type { AnswerApiRequest } from '../api/api-answer.js';
import type { ApiRequest } from '../api/api-request.js';
import type { Endpoint } from '../api/endpoint.js';
import { type JsonReply, sendError } from '../api/reply.js';
import type { BudgetState } from '../limits/limits.js';
import type { RouteMetrics, ServiceMetrics } from '../metrics/service-metrics.js';
import type { VariantResolver, VariantRuntime } from '../variants/variant-runtime.js';
import type { Admission } from './admission.js';
import { BODY_LIMIT } from './body-limit.js';
import { answerServerError } from './error-handling.js';
import { requestIdOf } from './request-id.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's fast lane (see FastLane), open once the API routes are registered. */
    fastLane: FastLane;
  }
}

/** The content types the lane reads a body of, exactly as sent; any other goes to Fastify's parsers. */
const JSON_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json; charset=utf-8']);
/** As Fastify's own JSON parser: a `__proto__` or `constructor.prototype` key is a malformed body. */
const JSON_PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

export interface FastLaneOptions {
  readonly endpoints: readonly Endpoint[];
  readonly resolver: VariantResolver;
  /** The app's trustProxy: which peers' X-Forwarded-For names the client. */
  readonly trustProxy: readonly string[];
  /** Who gets in: the client's budget, as the routes' hook asks it. */
  readonly admission: Admission;
  readonly answer: AnswerApiRequest;
  readonly metrics: ServiceMetrics;
  readonly log: FastifyBaseLogger;
}

/** An API route the lane takes: its endpoint under one variant base, and its metrics by variant. */
interface LaneRoute {
  readonly endpoint: Endpoint;
  readonly prefix: string;
  readonly recorders: (RouteMetrics | undefined)[];
}

class LaneRequest implements ApiRequest {
  body: unknown = undefined;
  limitsClient = '';
  limitsKeyClient: string | undefined = undefined;
  limitsState: BudgetState | undefined = undefined;

  constructor(
    readonly id: string,
    readonly headers: IncomingHttpHeaders,
    readonly query: unknown,
    readonly ip: string | undefined,
  ) {}
}

/**
 * The answer's status and headers, written in one go when it is sent (see JsonReply). Headers are
 * kept as Node's flat [name, value, ...] list: a handful, each set once or twice, and an object
 * given keys one by one changed its shape on every request.
 */
class LaneReply implements JsonReply {
  private statusCode = 200;
  private readonly headers: (string | number)[] = [];
  private readonly started = performance.now();

  constructor(
    private readonly res: ServerResponse,
    private readonly route: LaneRoute,
    private readonly variant: VariantRuntime,
    private readonly requestId: string,
    private readonly options: FastLaneOptions,
  ) {
    this.header('x-request-id', requestId);
  }

  /** Whether the answer's head is written: nothing can be answered on it any more. */
  get sent(): boolean {
    return this.res.headersSent;
  }

  code(statusCode: number): this {
    this.statusCode = statusCode;
    return this;
  }

  header(name: string, value: string | number): this {
    const { headers } = this;
    for (let at = 0; at < headers.length; at += 2) {
      if (headers[at] === name) {
        headers[at + 1] = value;
        return this;
      }
    }
    headers.push(name, value);
    return this;
  }

  send(payload: Buffer | Readable): this {
    const { res, headers } = this;
    if (Buffer.isBuffer(payload)) {
      headers.push('content-length', payload.length);
      res.writeHead(this.statusCode, headers);
      res.end(payload);
    } else {
      res.writeHead(this.statusCode, headers);
      pipeline(payload, res, (error) => {
        // The headers are gone: pipeline closes the connection, and the client sees a cut answer.
        if (error) this.options.log.warn({ reqId: this.requestId, err: error }, 'answer stream failed');
      });
    }
    this.record();
    return this;
  }

  /** What the request-metrics plugin records for a Fastify route: the endpoint's path, the variant, status and time. */
  private record(): void {
    const { recorders, endpoint } = this.route;
    const { variant } = this;
    let recorder = recorders[variant.index];
    if (recorder === undefined) {
      recorder = this.options.metrics.route(endpoint.path, variant.config.lang);
      recorders[variant.index] = recorder;
    }
    recorder.observe(this.statusCode, (performance.now() - this.started) / 1000);
  }
}

/**
 * The fast lane: the API's own requests answered straight from node:http, in front of Fastify.
 *
 * Validation is what sellers' software calls on every install, and on these machines Fastify's
 * lifecycle (routing, request and reply objects, hooks, the body parser's plumbing, the reply's
 * header handling) cost as much per request as the API's work itself. The lane takes only requests
 * whose handling it knows to the letter, by their first line and headers, before anything is
 * read: a GET or a JSON POST to an API path under a variant's base (trailing slash or not), with a
 * Host, no Expect, no chunked body and a declared length within the limit. It then runs what the
 * Fastify route runs, in the same order (request id, the client's budget, the body, the endpoint
 * through the same AnswerApiRequest, the same metrics), and answers with the same headers and
 * bodies. Everything else (other methods and paths, form and multipart bodies, odd content types,
 * oversized or chunked bodies, forwarded hosts) goes to Fastify untouched, which answers it as
 * before. While the log level is debug, nothing takes the lane: the access log is Fastify's.
 */
export class FastLane {
  /** How many requests the lane has taken (tests and operators tell the two paths apart by it). */
  taken = 0;
  private options: FastLaneOptions | undefined;
  private readonly gets = new Map<string, LaneRoute>();
  private readonly posts = new Map<string, LaneRoute>();
  private trusted: ((address: string, hop: number) => boolean) | undefined;

  /** Starts taking requests for these endpoints under every variant base. */
  open(options: FastLaneOptions): void {
    const { endpoints, resolver, trustProxy, log } = options;
    if (log.level === 'debug' || log.level === 'trace') return;
    for (const prefix of resolver.prefixes) {
      for (const endpoint of endpoints) {
        const routes = endpoint.method === 'GET' ? this.gets : this.posts;
        const route: LaneRoute = { endpoint, prefix, recorders: [] };
        const path = `${prefix}${endpoint.path}`;
        routes.set(path, route);
        routes.set(`${path}/`, route);
      }
    }
    this.trusted = trustProxy.length > 0 ? proxyAddr.compile([...trustProxy]) : undefined;
    this.options = options;
  }

  /** Answers the request and says true, or leaves it untouched and says false (Fastify's then). */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    const { options } = this;
    if (options === undefined) return false;
    const { method, headers } = req;
    const isGet = method === 'GET';
    if (!isGet && method !== 'POST') return false;
    const url = req.url as string;
    const queryAt = url.indexOf('?');
    const route = (isGet ? this.gets : this.posts).get(queryAt === -1 ? url : url.slice(0, queryAt));
    if (route === undefined) return false;
    const { host } = headers;
    if (
      host === undefined ||
      headers.expect !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      (this.trusted !== undefined && headers['x-forwarded-host'] !== undefined)
    ) {
      return false;
    }
    const length = headers['content-length'];
    if (isGet) {
      if (length !== undefined) return false;
    } else if (length === undefined || Number(length) > BODY_LIMIT || !JSON_TYPES.has(headers['content-type'] ?? '')) {
      return false;
    }
    const variant = options.resolver.forPrefix(route.prefix, host);
    if (variant === undefined) return false;

    this.taken++;
    const id = requestIdOf(req);
    const reply = new LaneReply(res, route, variant, id, options);
    const query = queryAt === -1 || queryAt === url.length - 1 ? {} : parseQuery(url.slice(queryAt + 1));
    const request = new LaneRequest(id, headers, query, this.clientAddress(req));
    if (!options.admission.admitClient(request, reply, variant)) return true;
    if (isGet) {
      this.answer(route, request, reply, variant);
      return true;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    });
    req.on('end', () => {
      const text =
        chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, received).toString('utf8');
      try {
        if (text.length === 0) throw new SyntaxError('empty body');
        request.body = secureJsonParse.parse(text, undefined, JSON_PARSE_OPTIONS);
      } catch {
        // As Fastify's body parser does: a client that sent a broken body may be sending anything
        // next, so nothing more is read on this connection (a request pipelined behind it included).
        sendError(reply.header('connection', 'close'), variant, 'malformedRequest');
        return;
      }
      this.answer(route, request, reply, variant);
    });
    // A client gone mid-body leaves nobody to answer; Node closes the socket.
    req.on('error', () => {});
    return true;
  }

  private answer(route: LaneRoute, request: LaneRequest, reply: LaneReply, variant: VariantRuntime): void {
    const options = this.options as FastLaneOptions;
    options.answer(route.endpoint, request, reply, variant).catch((error: unknown) => {
      // Fastify logs what fails once an answer is on its way; the lane must not let it escape
      // either (an unhandled rejection ends the process).
      if (reply.sent) options.log.error({ reqId: request.id, err: error }, 'failed after answering');
      else answerServerError(error, { id: request.id, log: options.log, metrics: options.metrics, reply, variant });
    });
  }

  /** `request.ip` as Fastify gives it: the peer, or with trustProxy the client the trusted proxies name. */
  private clientAddress(req: IncomingMessage): string | undefined {
    if (this.trusted === undefined) return req.socket.remoteAddress;
    const addresses = proxyAddr.all(req, this.trusted);
    return addresses[addresses.length - 1];
  }
}

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import proxyAddr from '@fastify/proxy-addr';
import { parse as parseQuery } from 'fast-querystring';
import type { FastifyBaseLogger } from 'fastify';
import type { Api } from '../api/api.js';
import type { ApiRequest } from '../api/api-request.js';
import type { MaybePromise } from '../api/maybe-async.js';
import { type JsonReply, sendError } from '../api/reply.js';
import type { ApiRoute } from '../api/route-table.js';
import type { BudgetState } from '../limits/limits.js';
import type { RouteMetrics, ServiceMetrics } from '../metrics/service-metrics.js';
import { type AnswerSigner, isValidNonce, NONCE_HEADER } from '../signing/answer-signer.js';
import type { ErrorKind } from '../variants/error-kinds.js';
import type { VariantResolver, VariantRuntime } from '../variants/variant-runtime.js';
import { AnswerWrites } from './answer-writes.js';
import { BODY_LIMIT } from './body-limit.js';
import type { BodyOutcome } from './body-outcome.js';
import { classifyError, reportFailure } from './error-classifier.js';
import { integerText } from './integer-text.js';
import { readBody } from './request-body.js';
import { requestIdOf } from './request-id.js';
import { pathOf } from './url-path.js';
import { WallClock } from './wall-clock.js';

export interface ApiDoorOptions {
  readonly api: Api;
  readonly resolver: VariantResolver;
  /** The app's trustProxy: which peers' X-Forwarded-For and X-Forwarded-Host name the client and host. */
  readonly trustProxy: readonly string[];
  readonly metrics: ServiceMetrics;
  readonly log: FastifyBaseLogger;
  /** Signs every answer (RFC 9421): see src/signing. */
  readonly signer: AnswerSigner;
}

/** How many Host values each route remembers its variant for. */
const REMEMBERED_HOSTS = 64;

/** The request as the API's endpoints and budgets read it (see ApiRequest). */
class DoorRequest implements ApiRequest {
  body: unknown = undefined;
  limitsClient = '';
  limitsKeyClient: string | undefined = undefined;
  limitsState: BudgetState | undefined = undefined;
  endpointPath: string | undefined = undefined;

  constructor(
    readonly id: string,
    readonly started: number,
    readonly at: number,
    readonly headers: IncomingHttpHeaders,
    readonly query: unknown,
    readonly ip: string | undefined,
  ) {}
}

/** Where a route's answers are counted, by variant name. */
type Recorders = (variant: string) => RouteMetrics;

/** What an answer's signature covers of its request, besides the method. */
interface SignedTarget {
  /** The path as sent. */
  readonly path: string;
  /** What followed the path's `?` ('' when nothing). */
  readonly query: string;
  /** The client's `Signature-Nonce`, when it sent a well-formed one. */
  readonly nonce: string | undefined;
}

/** What the door keeps per route: its variant per Host, and its recorder per variant index, each found once. */
interface RouteState {
  readonly route: ApiRoute;
  readonly variants: Map<string, VariantRuntime | null>;
  readonly recorders: Recorders;
  readonly byVariant: (RouteMetrics | undefined)[];
}

/** The query of a target without one, shaped as a parsed one (no prototype): nothing reads a query to change it. */
const NO_QUERY: unknown = Object.freeze(Object.create(null));

/**
 * The answer's status and headers, written in one go when it is sent. Headers are kept as Node's
 * flat [name, value, ...] list: a handful, each set once or twice, and an object given keys one by
 * one changed its shape on every request. Values are kept as text: Node checks a number's
 * characters on a slow path and turns it into text twice; numbers (whole, every one a header
 * carries) are made text with integerText. Sending counts the answer and, at debug level, logs it.
 */
class DoorReply implements JsonReply {
  private statusCode = 200;
  private readonly headers: string[];

  constructor(
    /** When the request came (performance.now()). */
    private readonly started: number,
    private readonly res: ServerResponse,
    private readonly door: ApiDoor,
    private readonly requestId: string,
    private readonly method: string,
    /** What the answer is logged under (null: no route matched). */
    private readonly route: ApiRoute | null,
    /** Where the answer is counted. */
    private readonly recorder: RouteMetrics,
    private readonly target: SignedTarget,
  ) {
    this.headers = ['x-request-id', requestId];
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
    const text = typeof value === 'string' ? value : integerText(value);
    for (let at = 0; at < headers.length; at += 2) {
      if (headers[at] === name) {
        headers[at + 1] = text;
        return this;
      }
    }
    headers.push(name, text);
    return this;
  }

  send(payload: Buffer | Readable): this {
    if (!Buffer.isBuffer(payload)) {
      // The signature covers the body's digest, which goes before the body: a streamed answer (a
      // long item list, serialised page by page) is gathered first, then sent whole.
      const chunks: Buffer[] = [];
      payload.on('data', (chunk: Buffer | string) =>
        chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk),
      );
      payload.once('end', () => this.send(Buffer.concat(chunks)));
      payload.once('error', (error) => {
        // Nothing is sent yet, but the answer can no longer be made whole: the client sees the connection close.
        this.door.log.warn({ reqId: this.requestId, err: error }, 'answer stream failed');
        this.res.destroy();
      });
      return this;
    }
    const { res, headers, target } = this;
    const signed = this.door.signer.sign(
      this.statusCode,
      this.method,
      target.path,
      target.query,
      target.nonce,
      payload,
    );
    headers.push(
      'content-length',
      integerText(payload.length),
      'content-digest',
      signed.contentDigest,
      'signature-input',
      signed.signatureInput,
      'signature',
      signed.signature,
    );
    res.writeHead(this.statusCode, headers);
    // A HEAD answer is the GET's head: same status and headers, its length included, no body.
    this.door.writes.end(res, this.method === 'HEAD' ? undefined : payload);
    this.record(this.statusCode, performance.now() - this.started);
    return this;
  }

  /** Counts the answer under its route and variant, and writes the access line at debug level. */
  private record(status: number, ms: number): void {
    this.recorder.observe(status, ms / 1000);
    if (this.door.accessLog) {
      const route = this.route?.pattern ?? null;
      this.door.log.debug({ reqId: this.requestId, method: this.method, route, status, ms }, 'request');
    }
  }
}

/**
 * The API's one door: every request under a variant's `{base}/api` is answered here, straight
 * from node:http, whatever its method, body or outcome; everything else (the workspace, the admin
 * API, the docs, health) goes on to Fastify. One pipeline, in this order: request id, the Host
 * rule, the route and its method (404, 405 with `Allow`), the client's budget, the body (JSON, form
 * or multipart, within the limit), the endpoint, and the answer counted, logged and written with the
 * others of its event-loop turn (see answer-writes.ts). Fastify's lifecycle per request cost as much
 * as the API's own work; nothing here is done per request that could be done once.
 */
export class ApiDoor {
  readonly metrics: ServiceMetrics;
  readonly log: FastifyBaseLogger;
  /** The access line is written at debug level only; read once, as the level is the process's. */
  readonly accessLog: boolean;
  readonly signer: AnswerSigner;
  /** Where every answer goes to be written, with the others of its turn. */
  readonly writes = new AnswerWrites();
  private readonly api: Api;
  private readonly resolver: VariantResolver;
  private readonly routeStates = new Map<ApiRoute, RouteState>();
  private readonly unrouted: Recorders;
  private readonly clock = new WallClock();
  private readonly trusted: ((address: string, hop: number) => boolean) | undefined;

  constructor({ api, resolver, trustProxy, metrics, log, signer }: ApiDoorOptions) {
    this.api = api;
    this.signer = signer;
    this.resolver = resolver;
    this.metrics = metrics;
    this.log = log;
    this.accessLog = log.level === 'debug' || log.level === 'trace';
    this.trusted = trustProxy.length > 0 ? proxyAddr.compile([...trustProxy]) : undefined;
    // Labelled by the endpoint's path, whatever the variant's base: the variant is a label of its own.
    for (const route of api.routes.routes) {
      this.routeStates.set(route, {
        route,
        variants: new Map(),
        recorders: metrics.routeRecorders(route.endpoint.path),
        byVariant: [],
      });
    }
    this.unrouted = metrics.routeRecorders('unrouted');
  }

  /** Answers the request and says true when its path is the API's, else leaves it untouched and says false. */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url as string;
    const path = pathOf(url);
    const { routes } = this.api;
    // A route's path is under `/api` by its making: only a path that is none is asked whether it is the API's.
    const found = routes.find(path);
    if (found === undefined && !routes.isApiPath(path)) return false;

    const started = performance.now();
    const { headers } = req;
    const method = req.method as string;
    const id = requestIdOf(req);
    const host = this.hostOf(req);
    const state = found === undefined ? undefined : this.routeStates.get(found);
    const variant = state === undefined ? undefined : this.variantFor(state, host);
    // RFC 9112 3.2: an HTTP/1.1 request that names no host is a 400 (Node is told to let it in),
    // whatever its path or method.
    const hostless = headers.host === undefined && req.httpVersion === '1.1';
    // What follows the path and its `?`: the target is not scanned again.
    const queryText = url.length === path.length ? '' : url.slice(path.length + 1);
    const givenNonce = headers[NONCE_HEADER];
    const nonceOk = givenNonce === undefined || (typeof givenNonce === 'string' && isValidNonce(givenNonce));
    const target: SignedTarget = { path, query: queryText, nonce: nonceOk ? givenNonce : undefined };
    if (hostless || state === undefined || variant === undefined) {
      const fallback = this.resolver.forPath(path, host).variant;
      const reply = new DoorReply(started, res, this, id, method, null, this.unrouted(fallback.config.lang), target);
      sendError(reply, fallback, hostless ? 'malformedRequest' : 'notFound');
      return true;
    }
    const { route } = state;
    if (route.endpoint.method !== method && !(method === 'HEAD' && route.endpoint.method === 'GET')) {
      const reply = new DoorReply(started, res, this, id, method, null, this.unrouted(variant.config.lang), target);
      sendError(reply.header('allow', route.allow), variant, 'methodNotAllowed');
      return true;
    }
    if (!nonceOk) {
      // A nonce that cannot be echoed as it came is refused, not dropped: the client would take the unbound answer for bound.
      const reply = new DoorReply(started, res, this, id, method, null, this.unrouted(variant.config.lang), target);
      const { texts } = variant.config;
      sendError(reply, variant, 'badParameter', texts.parameter.malformed('Signature-Nonce', texts.expectations.nonce));
      return true;
    }

    const reply = new DoorReply(started, res, this, id, method, route, this.recorderFor(state, variant), target);
    const query = queryText === '' ? NO_QUERY : parseQuery(queryText);
    const at = this.clock.at(started);
    const request = new DoorRequest(id, started, at, headers, query, this.clientAddress(req));
    if (!this.api.admitClient(request, reply, variant)) return true;
    if (route.endpoint.method === 'GET') {
      // A GET's body, if any, is not read (SPEC 2.1): Node discards it once the answer is sent.
      this.answer(route, request, reply, variant);
      return true;
    }
    if (Number(headers['content-length'] ?? 0) > BODY_LIMIT) {
      // Closed rather than drained: reading a declared gigabyte to keep the socket is the attack.
      this.api.refuse(request, reply.header('connection', 'close'), variant, 'bodyTooLarge');
      return true;
    }
    readBody(req, BODY_LIMIT, (outcome: BodyOutcome) => {
      if (outcome.aborted) {
        // The client went away mid-body: nobody is left to answer.
        this.log.debug({ reqId: id }, 'request body aborted');
        req.socket.destroy();
        return;
      }
      if (outcome.error !== undefined) {
        this.refuseBody(request, reply, variant, outcome.error);
        return;
      }
      request.body = outcome.body;
      this.answer(route, request, reply, variant);
    });
    return true;
  }

  /**
   * A body that could not be read. Only a 415 leaves the connection open: its body was not read at
   * all, and Node discards it. After a broken or oversized one the client may be sending anything
   * next, so nothing more is read on this connection (a request pipelined behind it included).
   */
  private refuseBody(request: DoorRequest, reply: DoorReply, variant: VariantRuntime, kind: ErrorKind): void {
    this.api.refuse(
      request,
      kind === 'unsupportedContentType' ? reply : reply.header('connection', 'close'),
      variant,
      kind,
    );
  }

  /** The endpoint's answer: sent at once when it is in memory, else once the store has answered. */
  private answer(route: ApiRoute, request: DoorRequest, reply: DoorReply, variant: VariantRuntime): void {
    let answered: MaybePromise<void>;
    try {
      answered = this.api.answer(route.endpoint, request, reply, variant);
    } catch (error) {
      this.failed(error, request, reply, variant);
      return;
    }
    // An unhandled rejection would end the process.
    if (answered instanceof Promise) answered.catch((error: unknown) => this.failed(error, request, reply, variant));
  }

  /** What failed of the service's own is answered, or logged once an answer is already on its way. */
  private failed(error: unknown, request: DoorRequest, reply: DoorReply, variant: VariantRuntime): void {
    if (reply.sent) {
      this.log.error({ reqId: request.id, err: error }, 'failed after answering');
      return;
    }
    const failure = classifyError(error);
    reportFailure(failure, { surface: 'api', reqId: request.id, log: this.log, metrics: this.metrics });
    this.api.refuse(request, reply, variant, failure.kind === 'serviceUnavailable' ? 'serviceUnavailable' : 'internal');
  }

  /**
   * The variant a route answers for this Host, remembered per route for the hosts seen first
   * (clients name a handful; a flood of made-up hosts is resolved each time, not remembered).
   */
  private variantFor({ route, variants: byHost }: RouteState, host: string): VariantRuntime | undefined {
    const known = byHost.get(host);
    if (known !== undefined) return known ?? undefined;
    const variant = this.resolver.forPrefix(route.prefix, host);
    if (byHost.size < REMEMBERED_HOSTS) byHost.set(host, variant ?? null);
    return variant;
  }

  /** Where the route's answers in this variant are counted. */
  private recorderFor(state: RouteState, variant: VariantRuntime): RouteMetrics {
    let recorder = state.byVariant[variant.index];
    if (recorder === undefined) {
      recorder = state.recorders(variant.config.lang);
      state.byVariant[variant.index] = recorder;
    }
    return recorder;
  }

  /** The Host the client named, or with trustProxy and a trusted peer, the last X-Forwarded-Host. */
  private hostOf(req: IncomingMessage): string {
    const given = req.headers['x-forwarded-host'];
    const forwarded = Array.isArray(given) ? given[given.length - 1] : given;
    if (forwarded && this.trusted?.(req.socket.remoteAddress ?? '', 0)) {
      const last = forwarded.lastIndexOf(',');
      return last === -1 ? forwarded.trim() : forwarded.slice(last + 1).trim();
    }
    return req.headers.host ?? '';
  }

  /** The peer, or with trustProxy the client the trusted proxies name. */
  private clientAddress(req: IncomingMessage): string | undefined {
    if (this.trusted === undefined) return req.socket.remoteAddress;
    const addresses = proxyAddr.all(req, this.trusted);
    return addresses[addresses.length - 1];
  }
}

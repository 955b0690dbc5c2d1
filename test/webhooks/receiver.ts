import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The status it was answered with (0: left hanging). */
  readonly answered: number;
}

/** How the receiver answers a request: a status, or no answer at all (the sender times out). */
export type Behaviour = number | 'hang';

/**
 * A real webhook receiver on a loopback port: it records every request, answers as it is told
 * (200 unless a behaviour is queued), and lets a test wait for a request, never for a time.
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly queued: Behaviour[] = [];
  private readonly waiters: { test: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  private readonly hanging = new Set<import('node:http').ServerResponse>();
  private server: Server | undefined;
  /** The behaviour once the queue is empty. */
  fallback: Behaviour = 200;
  /** When set, decides every answer (over the queue and the fallback). */
  decide: ((body: string) => Behaviour) | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const behaviour = this.decide?.(body) ?? this.queued.shift() ?? this.fallback;
        if (behaviour === 'hang') this.hanging.add(response);
        else
          response
            .writeHead(behaviour, { 'content-type': 'text/plain' })
            .end(behaviour >= 300 ? '<b>nope</b>\u0007 failing' : 'ok');
        const got: Received = {
          path: request.url ?? '',
          headers: request.headers,
          body,
          answered: behaviour === 'hang' ? 0 : behaviour,
        };
        this.received.push(got);
        for (const waiter of [...this.waiters]) {
          if (waiter.test(got)) {
            this.waiters.splice(this.waiters.indexOf(waiter), 1);
            waiter.resolve(got);
          }
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers the next requests so, in order. */
  answerNext(...behaviours: Behaviour[]): void {
    this.queued.push(...behaviours);
  }

  /** The first request (already received or to come) that passes `test`. */
  waitFor(test: (received: Received) => boolean): Promise<Received> {
    const found = this.received.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  /** Requests of one event type, parsed. */
  ofType(type: string): Received[] {
    return this.received.filter((received) => (JSON.parse(received.body) as { type: string }).type === type);
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** The parsed body of a received request. */
export const payloadOf = (received: Received) =>
  JSON.parse(received.body) as Record<string, unknown> & {
    id: string;
    type: string;
    data: Record<string, unknown>;
  };

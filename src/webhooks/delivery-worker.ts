import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import type { ClaimedDelivery, DeliveryBookkeeping } from '../store/webhooks/webhook-store.js';
import { isPermanentRefusal, type OutboundClient } from './outbound-request.js';
import type { PayloadContext } from './webhook-payload.js';
import { webhookPayload } from './webhook-payload.js';
import { signingSecrets, signWebhook } from './webhook-signing.js';
import type { WebhooksSettings } from './webhooks-config.js';

/** How an attempt ended, for the metrics. */
export type AttemptResult = 'succeeded' | 'retrying' | 'failed';

/** What the worker tells its process (never a secret, a URL's query or a body). */
export interface DeliveryObserver {
  attempted(result: AttemptResult): void;
  endpointDisabled(endpointId: string): void;
  error(error: unknown, message: string): void;
}

export interface DeliveryWorkerOptions {
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly settings: WebhooksSettings;
  readonly payloads: PayloadContext;
  readonly client: OutboundClient;
  readonly observer: DeliveryObserver;
  /**
   * Where the queue's writes go (claims, outcomes, retention, an endpoint disabled): the process's
   * background writer; the store's own webhook tables when left out.
   */
  readonly bookkeeping?: () => DeliveryBookkeeping;
  /** Random numbers from 0 to 1, for the jitter. */
  readonly random?: () => number;
}

/** How often old deliveries and events are dropped, the first time a minute after start. */
const RETENTION_EVERY_MS = 3_600_000;
const RETENTION_FIRST_MS = 60_000;
/** How long stopping waits for the attempts in flight. */
const STOP_WAIT_MS = 3000;
/** Attempts in flight in one process, every endpoint together. */
const MAX_IN_FLIGHT = 32;
/**
 * How long past its timeout an attempt's claim lasts (the finishing write's time): as long again
 * and a second more. A process that died holding a claim delays that attempt by this much.
 */
const leaseMs = (timeoutMs: number) => Math.max(2 * timeoutMs + 1000, MIN_LEASE_MS);
const MIN_LEASE_MS = 10_000;
/** Tries to record an attempt's outcome (a busy store): the attempt was made, and is sent again if it is not recorded. */
const FINISH_TRIES = 6;

/**
 * The wait before attempt `attempts + 1` after `attempts` failed ones: the base doubled each
 * time, times a jitter from 0.75 to 1.25, so that endpoints that failed together do not retry in
 * step.
 */
export function retryDelayMs(attempts: number, baseMs: number, random: number): number {
  return Math.round(baseMs * 2 ** (attempts - 1) * (0.75 + random / 2));
}

/**
 * Sends due deliveries, at least once each: polls the store's queue, claims what is due (see
 * WebhookStore.claim: several processes or instances never take the same attempt), signs and
 * posts each event, and records the outcome: success, a retry after a back-off, or a failure for
 * good after `maxAttempts`. A process that dies mid-attempt leaves its claim to run out; the
 * attempt is then made again elsewhere (or here, after a restart).
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private nextRetention = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = true;
  private polling: Promise<void> | undefined;

  constructor(private readonly options: DeliveryWorkerOptions) {}

  private bookkeeping(): DeliveryBookkeeping {
    return this.options.bookkeeping?.() ?? this.options.store.webhooks();
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    // As the activity's: a minute after start, then hourly (a start is busy enough).
    this.nextRetention = Date.now() + RETENTION_FIRST_MS;
    this.schedule(0);
  }

  /** Looks at the queue now (a change was just made here): no waiting for the next poll. */
  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  /**
   * Stops polling and waits for the attempts in flight, a few seconds at most: the process's
   * shutdown grace is short, and an attempt not recorded is made again once its claim runs out.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
    let timer: NodeJS.Timeout | undefined;
    const enough = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STOP_WAIT_MS);
    });
    await Promise.race([Promise.all(this.inFlight), enough]);
    clearTimeout(timer);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.polling) return this.schedule(delayMs || 10);
      this.polling = this.poll().finally(() => {
        this.polling = undefined;
        if (!this.stopped) this.schedule(this.options.settings.pollSeconds * 1000);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const { store, settings, observer } = this.options;
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0 || this.stopped) return;
    try {
      const now = Date.now();
      const bookkeeping = this.bookkeeping();
      if (now >= this.nextRetention) {
        // Idempotent: every process doing it, now and then, is harmless.
        this.nextRetention = now + RETENTION_EVERY_MS;
        await bookkeeping.dropBefore(now - settings.retentionDays * 86_400_000);
      }
      // A read first: the claim is a write, made only when there is work.
      if (!(await store.webhooks().anyDue(now))) return;
      const timeoutMs = settings.timeoutSeconds * 1000;
      const claimed = await bookkeeping.claim({
        now,
        limit: room,
        leaseUntil: now + leaseMs(timeoutMs),
        perEndpoint: settings.concurrencyPerEndpoint,
      });
      for (const delivery of claimed) {
        const attempt = this.attempt(delivery).finally(() => {
          this.inFlight.delete(attempt);
          // A slot is free: what waited for it need not wait for the next poll.
          this.wake();
        });
        this.inFlight.add(attempt);
      }
    } catch (error) {
      observer.error(error, 'webhooks: could not read the delivery queue');
    }
  }

  /**
   * An endpoint whose address (or URL) is refused here would be refused on every attempt for
   * days: it is disabled at once, its deliveries kept, and the workspace says why. Enabling it
   * again tries once more (the name may point elsewhere by then).
   */
  private async disableRefused(endpointId: string): Promise<void> {
    const { observer } = this.options;
    await this.bookkeeping().updateEndpoint(endpointId, { enabled: 0, disabled_reason: 'refused' });
    observer.endpointDisabled(endpointId);
  }

  private async attempt({ delivery, event, endpoint }: ClaimedDelivery): Promise<void> {
    const { keys, settings, payloads, client, observer } = this.options;
    const started = Date.now();
    let result: { status: number; ok: boolean; error: string };
    try {
      const body = await webhookPayload(event, endpoint.lang, payloads);
      const headers = signWebhook(signingSecrets(keys, endpoint, started), event.id, new Date(started), body);
      result = await client.post(endpoint.url, headers, body, settings.timeoutSeconds * 1000);
    } catch (error) {
      observer.error(error, 'webhooks: could not make a delivery');
      result = { status: 0, ok: false, error: 'could not be prepared (see the server log)' };
    }
    const at = Date.now();
    const final = !result.ok && delivery.attempts >= settings.maxAttempts;
    const state = result.ok ? 'succeeded' : final ? 'failed' : 'pending';
    const random = (this.options.random ?? Math.random)();
    const nextAttemptAt =
      state === 'pending' ? at + retryDelayMs(delivery.attempts, settings.retryBaseSeconds * 1000, random) : 0;
    const outcome = {
      eventId: event.id,
      endpointId: endpoint.id,
      claimedUntil: delivery.locked_until,
      at,
      status: result.status,
      error: result.error,
      state,
      nextAttemptAt,
      disableIfFailingSince: at - settings.disableAfterHours * 3_600_000,
    } as const;
    for (let tries = 1; ; tries++) {
      try {
        const disabled = await this.bookkeeping().finish(outcome);
        observer.attempted(result.ok ? 'succeeded' : final ? 'failed' : 'retrying');
        if (disabled) observer.endpointDisabled(endpoint.id);
        else if (!result.ok && isPermanentRefusal(result.error)) {
          await this.disableRefused(endpoint.id).catch((error: unknown) =>
            observer.error(error, 'webhooks: could not disable an endpoint whose address is refused'),
          );
        }
        return;
      } catch (error) {
        if (tries >= FINISH_TRIES) {
          // The claim runs out and the attempt is made again: at least once, never lost.
          observer.error(error, 'webhooks: could not record a delivery attempt');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** tries));
      }
    }
  }
}

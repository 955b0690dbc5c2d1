import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import type { DeliveryBookkeeping } from '../store/webhooks/webhook-store.js';
import type { VariantConfig } from '../variants/variant-config.js';
import { type DeliveryObserver, DeliveryWorker } from './delivery-worker.js';
import { OutboundClient } from './outbound-request.js';
import type { WebhookServiceDeps } from './webhook-endpoints.js';
import type { WebhooksSettings } from './webhooks-config.js';

export interface WebhooksServiceOptions {
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly settings: WebhooksSettings;
  readonly variants: readonly VariantConfig[];
  /** Whether purchases show `supported_until` (config `support`). */
  readonly support: boolean;
  readonly observer: DeliveryObserver;
  /** Where the delivery queue's own writes go (see DeliveryWorkerOptions.bookkeeping). */
  readonly bookkeeping?: () => DeliveryBookkeeping;
}

/** The webhooks of one process: what the surfaces manage endpoints with, and the delivery worker. */
export interface WebhooksService {
  readonly deps: WebhookServiceDeps;
  /** Starts delivering (every serving process does: claims keep them from sending an attempt twice). */
  start(): void;
  /** Looks at the queue now, after a change made here. */
  wake(): void;
  close(): Promise<void>;
}

export function createWebhooksService(options: WebhooksServiceOptions): WebhooksService {
  const { store, keys, settings, variants, support, observer, bookkeeping } = options;
  const client = new OutboundClient(settings);
  const worker = new DeliveryWorker({
    store,
    keys,
    settings,
    client,
    observer,
    bookkeeping,
    payloads: { variants, support, item: (id) => store.item(id) },
  });
  const wake = () => worker.wake();
  return {
    deps: { store, keys, settings, langs: [...new Set(variants.map((variant) => variant.lang))], wake },
    start: () => worker.start(),
    wake,
    async close() {
      await worker.stop();
      client.close();
    },
  };
}

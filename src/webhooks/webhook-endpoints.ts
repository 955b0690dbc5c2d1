import { randomUUID } from 'node:crypto';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import {
  newEndpointRow,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT,
  type WebhookEndpointRow,
} from '../store/webhooks/webhook-rows.js';
import type { WebhookDeliveryListing, WebhookEndpointHealth } from '../store/webhooks/webhook-store.js';
import type { Lang } from '../variants/languages.js';
import {
  type AddressLookup,
  endpointAddressRefused,
  endpointUrlCode,
  URL_PROBLEMS,
  type UrlProblemCode,
} from './outbound-request.js';
import { generateWebhookSecret, sealWebhookSecret } from './webhook-signing.js';
import type { WebhooksSettings } from './webhooks-config.js';

/**
 * A seller's webhook endpoints as the admin API, the CLI and the workspace manage them: one set of
 * rules for all three. A secret is returned once, when made; it is never shown again.
 */

/** At most this many endpoints per account. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 10;

/** Why an endpoint request was refused: a code for the surfaces, and a sentence saying what to change. */
export interface EndpointProblem {
  readonly ok: false;
  readonly problem: 'account_not_found' | 'webhook_not_found' | 'delivery_not_found' | 'invalid_webhook';
  readonly message?: string;
  /** For `invalid_webhook`: what is wrong, for a surface that words it itself (the workspace). */
  readonly field?: 'url' | 'events' | 'lang' | 'limit' | 'range';
  /** For a refused URL: what is wrong with it ('private': its host resolves to an address deliveries may not reach). */
  readonly reason?: UrlProblemCode | 'private';
}

/** The `message` of a URL whose host resolves to an address deliveries may not reach. */
export const PRIVATE_URL_MESSAGE =
  'url resolves to a private, loopback, link-local or reserved address, which webhooks are not sent to';

/** What a test event says, in the endpoint's language. */
const TEST_EVENT_MESSAGES: Readonly<Record<Lang, string>> = {
  en: 'A test event from the marketplace',
  pt: 'Um evento de teste do marketplace',
};

export interface WebhookServiceDeps {
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly settings: WebhooksSettings;
  /** The configured variants' languages: an endpoint's payloads are written in one. */
  readonly langs: readonly Lang[];
  /** Called after a write that may have made a delivery due: the local worker looks at once. */
  readonly wake: () => void;
  /** Resolves an endpoint's host when it is added (the system's resolver unless a test gives one). */
  readonly lookup?: AddressLookup;
}

/** What a new endpoint is asked for. */
export interface EndpointRequest {
  readonly url: unknown;
  readonly events: unknown;
  readonly lang?: unknown;
}

/** An endpoint as its owner and the operator see it (never its secret). */
export interface EndpointView {
  readonly id: string;
  readonly url: string;
  readonly events: string[];
  readonly lang: string;
  readonly enabled: boolean;
  /** Why it is disabled: null when enabled, 'seller', 'failures' or 'refused' (its address). */
  readonly disabled_reason: string | null;
  readonly failing_since: string | null;
  readonly last_success_at: string | null;
  readonly pending_deliveries: number;
  readonly secret_rotation_ends_at: string | null;
  readonly created_at: string;
}

export interface DeliveryView {
  readonly event_id: string;
  readonly type: string;
  readonly occurred_at: string;
  readonly state: string;
  readonly attempts: number;
  readonly last_attempt_at: string | null;
  readonly next_attempt_at: string | null;
  /** The last answer's HTTP status; null when there was none. */
  readonly response_status: number | null;
  readonly error: string | null;
}

const iso = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : null);

export function endpointView(row: WebhookEndpointHealth, now = Date.now()): EndpointView {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    lang: row.lang,
    enabled: row.enabled === 1,
    disabled_reason: row.enabled === 1 ? null : row.disabled_reason,
    failing_since: iso(row.failing_since),
    last_success_at: iso(row.last_success_at),
    pending_deliveries: row.pending,
    secret_rotation_ends_at: row.previous_secret_until > now ? iso(row.previous_secret_until) : null,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export function deliveryView(row: WebhookDeliveryListing): DeliveryView {
  return {
    event_id: row.event_id,
    type: row.type,
    occurred_at: new Date(row.occurred_at).toISOString(),
    state: row.state,
    attempts: row.attempts,
    last_attempt_at: iso(row.last_attempt_at),
    next_attempt_at: row.state === 'pending' ? iso(row.next_attempt_at) : null,
    response_status: row.last_status > 0 ? row.last_status : null,
    error: row.last_error === '' ? null : row.last_error,
  };
}

const invalid = (
  field: NonNullable<EndpointProblem['field']>,
  message: string,
  reason?: EndpointProblem['reason'],
): EndpointProblem => ({
  ok: false,
  problem: 'invalid_webhook',
  message,
  field,
  ...(reason === undefined ? {} : { reason }),
});

/**
 * Checks a request for a new endpoint: the URL (its form, then the addresses its host resolves to
 * now, by the rule deliveries follow), the events (known, at least one), the language.
 */
async function checkRequest(
  deps: WebhookServiceDeps,
  request: EndpointRequest,
): Promise<{ url: string; events: string[]; lang: Lang } | EndpointProblem> {
  if (typeof request.url !== 'string' || request.url.trim() === '') {
    return invalid('url', 'url is required');
  }
  const url = request.url.trim();
  const urlCode = endpointUrlCode(url, deps.settings);
  if (urlCode !== undefined) return invalid('url', `url ${URL_PROBLEMS[urlCode]}`, urlCode);
  const given = typeof request.events === 'string' ? request.events.split(',') : request.events;
  if (!Array.isArray(given) || given.length === 0) {
    return invalid('events', `events must list at least one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  }
  const events: string[] = [];
  for (const event of given) {
    const name = typeof event === 'string' ? event.trim() : event;
    if (!(WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(name)) {
      return invalid('events', `events: ${JSON.stringify(name)} is not one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
    }
    if (!events.includes(name as string)) events.push(name as string);
  }
  const lang = request.lang === undefined || request.lang === '' ? deps.langs[0] : request.lang;
  if (!deps.langs.includes(lang as Lang)) return invalid('lang', `lang must be one of ${deps.langs.join(', ')}`);
  if (await endpointAddressRefused(url, deps.settings, deps.lookup))
    return invalid('url', PRIVATE_URL_MESSAGE, 'private');
  return { url, events, lang: lang as Lang };
}

/** Adds an endpoint to the account: its id and its secret, shown this once. */
export async function createEndpoint(
  deps: WebhookServiceDeps,
  account: string,
  request: EndpointRequest,
): Promise<{ ok: true; id: string; secret: string } | EndpointProblem> {
  const checked = await checkRequest(deps, request);
  if ('ok' in checked) return checked;
  const webhooks = deps.store.webhooks();
  if ((await deps.store.accountByUsername(account)) === undefined) return { ok: false, problem: 'account_not_found' };
  const secret = generateWebhookSecret();
  const row = newEndpointRow(
    {
      id: `we_${randomUUID().replaceAll('-', '')}`,
      account,
      url: checked.url,
      events: JSON.stringify(checked.events),
      lang: checked.lang,
      secret_cipher: sealWebhookSecret(deps.keys, secret),
    },
    Date.now(),
  );
  // The cap is counted where the endpoint is written, in one step: adds made at once cannot pass it together.
  const created = await webhooks.createEndpoint(row, MAX_ENDPOINTS_PER_ACCOUNT);
  if (created === 'no_account') return { ok: false, problem: 'account_not_found' };
  if (created === 'limit') {
    return invalid('limit', `an account may have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints`);
  }
  return { ok: true, id: row.id, secret };
}

/** The account's endpoints with their health; undefined when there is no such account. */
export async function listEndpoints(store: Store, account: string): Promise<EndpointView[] | undefined> {
  if ((await store.accountByUsername(account)) === undefined) return undefined;
  const now = Date.now();
  return (await store.webhooks().endpoints(account)).map((row) => endpointView(row, now));
}

/** The account's endpoint by id, or the problem. */
async function ownEndpoint(store: Store, account: string, id: string): Promise<WebhookEndpointRow | EndpointProblem> {
  const endpoint = await store.webhooks().endpoint(id);
  if (endpoint === undefined || endpoint.account !== account) {
    return (await store.accountByUsername(account)) === undefined
      ? { ok: false, problem: 'account_not_found' }
      : { ok: false, problem: 'webhook_not_found' };
  }
  return endpoint;
}

const isProblem = (value: object): value is EndpointProblem => 'ok' in value && value.ok === false;

export async function deleteEndpoint(
  store: Store,
  account: string,
  id: string,
): Promise<{ ok: true } | EndpointProblem> {
  const endpoint = await ownEndpoint(store, account, id);
  if (isProblem(endpoint)) return endpoint;
  await store.webhooks().deleteEndpoint(account, id);
  return { ok: true };
}

/** Disables (by the seller) or enables again; enabling forgets the run of failures. */
export async function setEndpointEnabled(
  deps: WebhookServiceDeps,
  account: string,
  id: string,
  enabled: boolean,
): Promise<{ ok: true } | EndpointProblem> {
  const endpoint = await ownEndpoint(deps.store, account, id);
  if (isProblem(endpoint)) return endpoint;
  await deps.store
    .webhooks()
    .updateEndpoint(
      id,
      enabled ? { enabled: 1, disabled_reason: '', failing_since: 0 } : { enabled: 0, disabled_reason: 'seller' },
    );
  if (enabled) deps.wake();
  return { ok: true };
}

/**
 * A new secret for the endpoint, shown this once; the old one goes on signing beside it (two
 * signatures in `webhook-signature`) for `secretOverlapHours`, so the receiver can switch over.
 */
export async function rotateEndpointSecret(
  deps: WebhookServiceDeps,
  account: string,
  id: string,
): Promise<{ ok: true; secret: string; previous_secret_works_until: string | null } | EndpointProblem> {
  const endpoint = await ownEndpoint(deps.store, account, id);
  if (isProblem(endpoint)) return endpoint;
  const secret = generateWebhookSecret();
  const until = Date.now() + deps.settings.secretOverlapHours * 3_600_000;
  const overlap = deps.settings.secretOverlapHours > 0;
  await deps.store.webhooks().updateEndpoint(id, {
    secret_cipher: sealWebhookSecret(deps.keys, secret),
    previous_secret_cipher: overlap ? endpoint.secret_cipher : '',
    previous_secret_until: overlap ? until : 0,
  });
  return { ok: true, secret, previous_secret_works_until: overlap ? new Date(until).toISOString() : null };
}

/** Queues a `webhook.test` event for this endpoint alone: its id. */
export async function sendTestEvent(
  deps: WebhookServiceDeps,
  account: string,
  id: string,
): Promise<{ ok: true; event_id: string } | EndpointProblem> {
  const endpoint = await ownEndpoint(deps.store, account, id);
  if (isProblem(endpoint)) return endpoint;
  const eventId = await deps.store
    .webhooks()
    .addEventFor(
      endpoint,
      WEBHOOK_TEST_EVENT,
      JSON.stringify({ message: TEST_EVENT_MESSAGES[endpoint.lang as Lang] ?? TEST_EVENT_MESSAGES.en }),
      Date.now(),
    );
  deps.wake();
  return { ok: true, event_id: eventId };
}

/** The endpoint's latest deliveries, newest first. */
export async function recentDeliveries(
  store: Store,
  account: string,
  id: string,
  limit = 20,
): Promise<{ ok: true; deliveries: DeliveryView[] } | EndpointProblem> {
  const endpoint = await ownEndpoint(store, account, id);
  if (isProblem(endpoint)) return endpoint;
  return { ok: true, deliveries: (await store.webhooks().deliveries(id, limit)).map(deliveryView) };
}

/** Sends one delivery again now, its attempts counted afresh. */
export async function retryDelivery(
  deps: WebhookServiceDeps,
  account: string,
  id: string,
  eventId: string,
): Promise<{ ok: true } | EndpointProblem> {
  const endpoint = await ownEndpoint(deps.store, account, id);
  if (isProblem(endpoint)) return endpoint;
  if (!(await deps.store.webhooks().retry(id, eventId, Date.now())))
    return { ok: false, problem: 'delivery_not_found' };
  deps.wake();
  return { ok: true };
}

/** Reads a time as ISO 8601 (a date alone is its UTC midnight); undefined when it is not one. */
function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) {
    return undefined;
  }
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? undefined : ms;
}

/** Sends again every event of the endpoint's types recorded from `from` to `to` (ISO 8601, both included). */
export async function replayEvents(
  deps: WebhookServiceDeps,
  account: string,
  id: string,
  range: { readonly from: unknown; readonly to?: unknown },
): Promise<{ ok: true; replayed: number } | EndpointProblem> {
  const from = parseTime(range.from);
  const to = range.to === undefined || range.to === '' ? Date.now() : parseTime(range.to);
  if (from === undefined) return invalid('range', 'from must be an ISO 8601 time, such as 2026-01-31T00:00:00Z');
  if (to === undefined) return invalid('range', 'to must be an ISO 8601 time, such as 2026-01-31T23:59:59Z');
  if (to < from) return invalid('range', 'to must not be before from');
  const endpoint = await ownEndpoint(deps.store, account, id);
  if (isProblem(endpoint)) return endpoint;
  const replayed = await deps.store.webhooks().replay(endpoint, from, to, Date.now());
  deps.wake();
  return { ok: true, replayed };
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { decryptApiKey } from '../keys/api-keys.js';
import { WEBHOOK_EVENT_TYPES } from '../store/webhooks/webhook-rows.js';
import {
  createEndpoint,
  type DeliveryView,
  deleteEndpoint,
  type EndpointProblem,
  type EndpointView,
  listEndpoints,
  recentDeliveries,
  retryDelivery,
  rotateEndpointSecret,
  sendTestEvent,
  setEndpointEnabled,
  type WebhookServiceDeps,
} from '../webhooks/webhook-endpoints.js';
import { deliveryDetailText } from './delivery-detail.js';
import type { WorkspaceTexts } from './texts/workspace-texts.js';

/** What the Webhooks page leaves for its next GET to show once (Post/Redirect/Get). */
export interface WebhookFlash {
  /** The endpoint whose secret is shown, this once: just made, or given a new one. */
  readonly secretOf?: string;
  readonly rotated?: boolean;
  readonly notice?: 'testQueued' | 'removed' | 'retryQueued';
}

type Handler<W> = (request: FastifyRequest, reply: FastifyReply, t: WorkspaceTexts, who: W) => Promise<unknown>;

/** The workspace's machinery the page is built with (see workspace-plugin.ts). */
export interface WebhookPageTools<W extends { readonly account: { readonly username: string } }> {
  readonly url: string;
  readonly deps: WebhookServiceDeps;
  workspacePage(method: 'GET' | 'POST', url: string, handler: Handler<W>): void;
  /** Renders the page's view with the common context of a signed-in page. */
  render(
    request: FastifyRequest,
    reply: FastifyReply,
    t: WorkspaceTexts,
    who: W,
    status: number,
    data: object,
  ): unknown;
  /** Stores what to show once and redirects to the page. */
  redirectWith(reply: FastifyReply, who: W, flash?: WebhookFlash): Promise<unknown>;
  /** The flash the session holds for this page (taken: shown once). */
  takeFlash(who: W): Promise<WebhookFlash | undefined>;
  dateText(t: WorkspaceTexts, at: Date): { iso: string; text: string };
  /** The variant language the page is in: new endpoints' payloads are in it unless the seller picks another. */
  langOf(t: WorkspaceTexts): string;
}

const DELIVERIES_SHOWN = 10;

const field = (body: unknown, name: string): unknown => (body as Record<string, unknown> | undefined)?.[name];

/**
 * `{base}/workspace/webhooks`: the seller's endpoints (add, send a test event, disable, enable,
 * delete, a new secret), each with its last deliveries (retry one). A secret shows once, on the
 * page the POST that made it redirects to; never in a URL, a log or a later page.
 */
export function registerWebhookPages<W extends { readonly account: { readonly username: string } }>(
  tools: WebhookPageTools<W>,
): void {
  const { url, deps, workspacePage } = tools;

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    t: WorkspaceTexts,
    who: W,
    options: {
      status?: number;
      flash?: WebhookFlash;
      form?: { url: string; events: string[]; lang: string };
      error?: string;
    },
  ) => {
    const username = who.account.username;
    const endpoints = (await listEndpoints(deps.store, username)) ?? [];
    const deliveries = new Map<string, DeliveryView[]>();
    for (const endpoint of endpoints) {
      const result = await recentDeliveries(deps.store, username, endpoint.id, DELIVERIES_SHOWN);
      deliveries.set(endpoint.id, result.ok ? result.deliveries : []);
    }
    let secret: { id: string; value: string; rotated: boolean } | undefined;
    const secretOf = options.flash?.secretOf;
    if (secretOf !== undefined) {
      const endpoint = await deps.store.webhooks().endpoint(secretOf);
      if (endpoint?.account === username) {
        secret = {
          id: secretOf,
          value: decryptApiKey(deps.keys, endpoint.secret_cipher),
          rotated: options.flash?.rotated === true,
        };
      }
    }
    const when = (iso: string | null) => (iso === null ? undefined : tools.dateText(t, new Date(iso)));
    return tools.render(request, reply, t, who, options.status ?? 200, {
      url,
      eventTypes: WEBHOOK_EVENT_TYPES,
      langs: deps.langs,
      form: options.form ?? { url: '', events: [], lang: tools.langOf(t) },
      error: options.error,
      secret,
      notice: options.flash?.notice,
      endpoints: endpoints.map((endpoint: EndpointView) => ({
        ...endpoint,
        failingSinceText: when(endpoint.failing_since),
        lastSuccessText: when(endpoint.last_success_at),
        deliveries: (deliveries.get(endpoint.id) ?? []).map((delivery) => ({
          ...delivery,
          occurredText: tools.dateText(t, new Date(delivery.occurred_at)),
          detailText: deliveryDetailText(delivery.error, t.webhookChecks),
        })),
      })),
    });
  };

  workspacePage('GET', url, async (request, reply, t, who) => {
    return show(request, reply, t, who, { flash: await tools.takeFlash(who) });
  });

  workspacePage('POST', url, async (request, reply, t, who) => {
    const given = field(request.body, 'events');
    const events = (Array.isArray(given) ? given : given === undefined ? [] : [given]).filter(
      (event): event is string => typeof event === 'string',
    );
    const form = {
      url: String(field(request.body, 'url') ?? '').slice(0, 2000),
      events,
      lang: String(field(request.body, 'lang') ?? ''),
    };
    const result = await createEndpoint(deps, who.account.username, form);
    if (!result.ok) {
      const problems = t.webhooks.problems;
      const error =
        result.field === 'events'
          ? problems.events
          : result.field === 'lang'
            ? problems.lang
            : result.field === 'limit'
              ? problems.limit
              : result.reason === undefined
                ? problems.url
                : t.webhookChecks.urlProblems[result.reason];
      return show(request, reply, t, who, { status: 422, form, error });
    }
    return tools.redirectWith(reply, who, { secretOf: result.id });
  });

  const action = (
    path: string,
    run: (
      username: string,
      id: string,
      request: FastifyRequest,
    ) => Promise<{ ok: true } | EndpointProblem | { ok: true; [key: string]: unknown }>,
    flash: (id: string) => WebhookFlash | undefined,
  ) =>
    workspacePage('POST', `${url}/:id/${path}`, async (request, reply, _t, who) => {
      const { id } = request.params as { id: string };
      const result = await run(who.account.username, id, request);
      // A form for an endpoint that is gone (deleted in another tab): the page as it now is.
      return tools.redirectWith(reply, who, result.ok ? flash(id) : undefined);
    });

  action(
    'test',
    (username, id) => sendTestEvent(deps, username, id),
    () => ({ notice: 'testQueued' }),
  );
  action(
    'disable',
    (username, id) => setEndpointEnabled(deps, username, id, false),
    () => undefined,
  );
  action(
    'enable',
    (username, id) => setEndpointEnabled(deps, username, id, true),
    () => undefined,
  );
  action(
    'delete',
    (username, id) => deleteEndpoint(deps.store, username, id),
    () => ({ notice: 'removed' }),
  );
  action(
    'secret',
    (username, id) => rotateEndpointSecret(deps, username, id),
    (id) => ({ secretOf: id, rotated: true }),
  );
  action(
    'retry',
    (username, id, request) => retryDelivery(deps, username, id, String(field(request.body, 'event_id') ?? '')),
    () => ({ notice: 'retryQueued' }),
  );
}

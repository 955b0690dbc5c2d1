import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decryptApiKey } from '../../keys/api-keys.js';
import { WEBHOOK_EVENT_TYPES } from '../../store/webhooks/webhook-rows.js';
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
} from '../../webhooks/webhook-endpoints.js';
import { deliveryDetailText } from '../delivery-detail.js';
import { workspaceLanguages } from '../texts/workspace-languages.js';
import type { WorkspaceTexts } from '../texts/workspace-texts.js';
import type { PageKit, SignedIn, WebhookFlash } from './page-kit.js';

const DELIVERIES_SHOWN = 10;

/** A field as text, whatever was sent (none: ''); the endpoint's checks say what is wrong with it. */
const AnyText = Type.Transform(Type.Unknown())
  .Decode((value): string => String(value ?? ''))
  .Encode((text) => text);

/** The event types ticked: every `events` field that is a text. */
const Ticked = Type.Transform(Type.Unknown())
  .Decode((value): string[] =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
      (event): event is string => typeof event === 'string',
    ),
  )
  .Encode((events) => events);

/** The "Add an endpoint" form. */
const EndpointForm = Type.Object({ url: AnyText, events: Ticked, lang: AnyText });

/** An endpoint's buttons: the endpoint in the path; Retry also names its delivery's event. */
const EndpointParams = Type.Object({ id: Type.String() });
const EndpointActionForm = Type.Object({ event_id: AnyText });

/** The variant language the page is in: new endpoints' payloads are in it unless the seller picks another. */
const langOf = (t: WorkspaceTexts) => Object.entries(workspaceLanguages).find(([, texts]) => texts === t)?.[0] ?? 'en';

/**
 * `{base}/workspace/webhooks`: the seller's endpoints (add, send a test event, disable, enable,
 * delete, a new secret), each with its last deliveries (retry one). A secret shows once, on the
 * page the POST that made it redirects to; never in a URL, a log or a later page.
 */
export function webhooksPages(kit: PageKit): void {
  const deps = kit.deps.webhooks;
  const url = kit.urls.webhooks;

  /** Post/Redirect/Get: what the POST did is shown once by the page it redirects to. */
  const redirectWith = (reply: FastifyReply, who: SignedIn, flash?: WebhookFlash) =>
    kit.redirectWith(reply, who, url, flash === undefined ? undefined : { webhook: flash });

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    t: WorkspaceTexts,
    who: SignedIn,
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
    const when = (iso: string | null) => (iso === null ? undefined : kit.dateText(t, new Date(iso)));
    return kit.renderPage(reply, options.status ?? 200, 'webhooks', {
      ...kit.context(request, reply, t, who),
      title: t.webhooks.title,
      nav: 'webhooks',
      url,
      eventTypes: WEBHOOK_EVENT_TYPES,
      langs: deps.langs,
      form: options.form ?? { url: '', events: [], lang: langOf(t) },
      error: options.error,
      secret,
      notice: options.flash?.notice,
      endpoints: endpoints.map((endpoint: EndpointView) => ({
        ...endpoint,
        failingSinceText: when(endpoint.failing_since),
        lastSuccessText: when(endpoint.last_success_at),
        deliveries: (deliveries.get(endpoint.id) ?? []).map((delivery) => ({
          ...delivery,
          occurredText: kit.dateText(t, new Date(delivery.occurred_at)),
          detailText: deliveryDetailText(delivery.error, t.webhookChecks),
        })),
      })),
    });
  };

  kit.workspacePage({
    method: 'GET',
    url,
    handler: async (request, reply, t, who) => {
      const flash = await kit.takeFlash(who);
      return show(request, reply, t, who, { flash: flash && 'webhook' in flash ? flash.webhook : undefined });
    },
  });

  kit.workspacePage({
    method: 'POST',
    url,
    schema: { body: EndpointForm },
    handler: async (request, reply, t, who) => {
      const form = { url: request.body.url.slice(0, 2000), events: request.body.events, lang: request.body.lang };
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
      return redirectWith(reply, who, { secretOf: result.id });
    },
  });

  const action = (
    path: string,
    run: (
      username: string,
      id: string,
      eventId: string,
    ) => Promise<{ ok: true } | EndpointProblem | { ok: true; [key: string]: unknown }>,
    flash: (id: string) => WebhookFlash | undefined,
  ) =>
    kit.workspacePage({
      method: 'POST',
      url: `${url}/:id/${path}`,
      schema: { params: EndpointParams, body: EndpointActionForm },
      handler: async (request, reply, _t, who) => {
        const { id } = request.params;
        const result = await run(who.account.username, id, request.body.event_id);
        // A form for an endpoint that is gone (deleted in another tab): the page as it now is.
        return redirectWith(reply, who, result.ok ? flash(id) : undefined);
      },
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
    (username, id, eventId) => retryDelivery(deps, username, id, eventId),
    () => ({ notice: 'retryQueued' }),
  );
}

import { type TSchema, Type } from '@sinclair/typebox';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from '../store/webhooks/webhook-rows.js';
import { Activation, ActivationCounts, Item, Purchase, PurchaseStatus, Timestamp } from './resource-schemas.js';

/**
 * The bodies of the webhooks, one schema per event type: the OpenAPI documents'
 * `webhooks` section and the SDK's types come from here, and the tests check what is sent
 * against them. The shape is the one Standard Webhooks suggests: `{id, type, timestamp, data}`,
 * with the account the event is about.
 */

const closed = { additionalProperties: false } as const;

/** The SDK's name of an event type's body: `purchase.created` -> `PurchaseCreatedEvent`. */
export function webhookEventName(type: string): string {
  const words = type.split(/[._]/).map((word) => `${word[0]?.toUpperCase()}${word.slice(1)}`);
  return `${words.join('')}Event`;
}

function event(type: string, data: TSchema, description: string) {
  return Type.Object(
    {
      id: Type.String({
        pattern: '^evt_[0-9a-f]{32}$',
        description:
          'The event id, also sent as the webhook-id header: the same on every retry, so a receiver can skip one seen before',
      }),
      type: Type.Literal(type),
      timestamp: Type.String({
        pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
        description: 'When the change was made (not when it was sent)',
      }),
      account: Type.String({ minLength: 1, description: 'The username of the seller the event is about' }),
      data,
    },
    { ...closed, description, title: webhookEventName(type) },
  );
}

/**
 * The Purchase object, whose item is null when the item is no longer the seller's (moved to
 * another seller, or deleted, since the event): an event tells a seller only of what is theirs.
 */
const EventPurchase = Type.Object(
  {
    ...Purchase.properties,
    item: Type.Union([Item, Type.Null()], {
      description: "The item as it is now; null when it is no longer this seller's (moved to another, or deleted)",
    }),
  },
  { ...closed, title: 'EventPurchase' },
);

const PurchaseData = Type.Object(
  {
    purchase: EventPurchase,
    status: Type.Union(PurchaseStatus.anyOf, { description: "The purchase's status after the change" }),
  },
  closed,
);

/** The body of each event type, by type. */
export const webhookEventSchemas: Readonly<Record<string, TSchema>> = {
  'purchase.created': event('purchase.created', PurchaseData, "A new purchase of one of the seller's items"),
  'purchase.refunded': event(
    'purchase.refunded',
    PurchaseData,
    'A purchase was refunded: its code no longer validates',
  ),
  'purchase.cancelled': event(
    'purchase.cancelled',
    PurchaseData,
    'A purchase was cancelled: its code no longer validates',
  ),
  'purchase.downloaded': event('purchase.downloaded', PurchaseData, 'A purchase was downloaded for the first time'),
  'api_key.rotated': event(
    'api_key.rotated',
    Type.Object(
      {
        old_key_works_until: Type.Union([Timestamp, Type.Null()], {
          description:
            'Until when the replaced key keeps working; null when it stopped at once. The key itself is never sent',
        }),
      },
      closed,
    ),
    "The seller's API key was replaced",
  ),
  'activation.created': event(
    'activation.created',
    Type.Object(
      {
        purchase_code: Type.String({ minLength: 1, description: 'The code as stored' }),
        activation: Activation,
        activations: ActivationCounts,
      },
      closed,
    ),
    'An instance was activated on one of the seller’s purchase codes',
  ),
  'activation.released': event(
    'activation.released',
    Type.Object(
      {
        purchase_code: Type.String({ minLength: 1, description: 'The code as stored' }),
        activation: Activation,
        reason: Type.Union([Type.Literal('released'), Type.Literal('refunded'), Type.Literal('cancelled')], {
          description: 'released: by the client or the seller; refunded, cancelled: the purchase ended it',
        }),
      },
      closed,
    ),
    'An activation ended: released, or its purchase refunded or cancelled',
  ),
  [WEBHOOK_TEST_EVENT]: event(
    WEBHOOK_TEST_EVENT,
    Type.Object({ message: Type.String() }, closed),
    'Sent on request (the workspace\'s "Send test event"), to one endpoint, whatever it subscribes to',
  ),
};

/** Every event type a body may have. */
export const WEBHOOK_BODY_TYPES: readonly string[] = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT];

import { PassThrough } from 'node:stream';
import type { TSchema } from '@sinclair/typebox';
import Database from 'better-sqlite3';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportNdjson } from '../../src/exporter/export-ndjson.js';
import { webhookEventSchemas } from '../../src/schemas/webhook-schemas.js';
import { readSnapshot } from '../../src/store/snapshot.js';
import { newEndpointRow, type WebhookEventRow } from '../../src/store/webhooks/webhook-rows.js';
import { webhookPayload } from '../../src/webhooks/webhook-payload.js';
import { generateWebhookSecret, sealWebhookSecret } from '../../src/webhooks/webhook-signing.js';
import { createContractAjv, keyOrderProblems } from '../helpers/response-contract.js';
import { createTestApp, TEST_STORES, type TestApp, type TestVariant, VARIANTS } from '../helpers/test-app.js';
import { expectError, expectJson, expectParamError, form, multipart, url } from './http-assertions.js';
import { accountLine, itemLine, purchaseLine } from './store-lines.js';

/**
 * Activations (docs/api.md, activations): an item's limit set by import, instances activated and
 * released over HTTP in both variants, the limit kept under concurrency, validation told of an
 * instance, refunds ending activations, the export's round trip and the webhook events.
 */

const KEY = 'activation-key-0123456789abcdef';
const OTHER_KEY = 'activation-other-0123456789abcd';
const ACTIVATE = '/api/purchases/activations';
const RELEASE = '/api/purchases/deactivation';
const VALIDATE = '/api/purchases/validation';

const MESSAGES = {
  en: { limit: 'Activation limit reached', unknown: 'Activation not found' },
  pt: { limit: 'Limite de ativações atingido', unknown: 'Ativação não encontrada' },
} as const;

/** Codes of one variant's cases: each variant works on codes of its own. */
const codesOf = (lang: string) => ({
  limited: `${lang}-LIMITED-1`,
  twice: `${lang}-TWICE-1`,
  unlimited: `${lang}-UNLIMITED-1`,
  refunded: `${lang}-REFUND-1`,
  crowd: `${lang}-CROWD-1`,
  transports: `${lang}-TRANSPORT-1`,
});

const LINES: readonly object[] = [
  accountLine('ana', KEY),
  accountLine('bo', OTHER_KEY),
  itemLine(501, 'ana', { activation_limit: 2 }),
  itemLine(502, 'ana'),
  itemLine(503, 'ana', { activation_limit: 3 }),
  itemLine(601, 'bo', { activation_limit: 5 }),
  ...VARIANTS.flatMap((variant) => {
    const codes = codesOf(variant.lang);
    return [
      purchaseLine(codes.limited, 501),
      purchaseLine(codes.twice, 501),
      purchaseLine(codes.unlimited, 502),
      purchaseLine(codes.refunded, 501),
      purchaseLine(codes.crowd, 503),
      purchaseLine(codes.transports, 502),
    ];
  }),
  purchaseLine('BO-CODE-1', 601),
  purchaseLine('ANA-GONE-1', 501, { status: 'refunded' }),
];

/** The outbox's events as stored (the app's own delivery worker may have claimed them already). */
async function storedEvents(t: TestApp): Promise<WebhookEventRow[]> {
  const query = 'SELECT * FROM webhook_events ORDER BY occurred_at';
  if (t.config.store.kind === 'sqlite') {
    const database = new Database(t.config.store.path, { readonly: true });
    try {
      return database.prepare<[], WebhookEventRow>(query).all();
    } finally {
      database.close();
    }
  }
  const client = new pg.Client({ connectionString: t.config.store.url });
  await client.connect();
  try {
    const { rows } = await client.query<WebhookEventRow>(query);
    return rows.map((row) => ({ ...row, occurred_at: Number(row.occurred_at) }));
  } finally {
    await client.end();
  }
}

function post(t: TestApp, variant: TestVariant, path: string, fields: Record<string, string>, key = KEY) {
  return t.app.inject({ method: 'POST', url: url(variant, path), headers: { 'x-api-key': key }, payload: fields });
}

const body = (response: LightMyRequestResponse) => JSON.parse(response.body);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(TEST_STORES)('%s store', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('$lang', (variant) => {
    const codes = codesOf(variant.lang);
    const purchaseOf = async (code: string) =>
      body(await post(t, variant, VALIDATE, { purchase_code: code })).data.purchase;

    it('activates up to the limit the import set (2): 201, 201, then 409 activation_limit in the variant’s words', async () => {
      const purchase = await purchaseOf(codes.limited);
      const first = await post(t, variant, ACTIVATE, { purchase_code: codes.limited, instance: 'one.example.com' });
      const made = body(first).data.activation;
      expect(made.id).toMatch(/^act_[0-9a-f]{32}$/);
      expect(made.created_at).toMatch(ISO);
      expectJson(first, 201, {
        status: variant.ok,
        data: {
          activation: { id: made.id, instance: 'one.example.com', created_at: made.created_at },
          activations: { used: 1, limit: 2 },
          purchase,
        },
      });
      const second = await post(t, variant, ACTIVATE, { purchase_code: codes.limited, instance: 'two.example.com' });
      expect(second.statusCode).toBe(201);
      expect(body(second).data.activations).toEqual({ used: 2, limit: 2 });
      const third = await post(t, variant, ACTIVATE, { purchase_code: codes.limited, instance: 'three.example.com' });
      expectError(third, variant, 409, MESSAGES[variant.lang].limit);
      expect(third.headers['x-error-code']).toBe('activation_limit');
    });

    it('releases one (200 with the count), then takes the third: 201', async () => {
      const released = await post(t, variant, RELEASE, { purchase_code: codes.limited, instance: 'one.example.com' });
      expectJson(released, 200, { status: variant.ok, data: { activations: { used: 1, limit: 2 } } });
      const third = await post(t, variant, ACTIVATE, { purchase_code: codes.limited, instance: 'three.example.com' });
      expect(third.statusCode).toBe(201);
      expect(body(third).data.activations).toEqual({ used: 2, limit: 2 });
      const rows = await t.store.activations().ofCode(codes.limited.toLowerCase());
      expect(rows.map((row) => row.instance)).toEqual(['two.example.com', 'three.example.com']);
    });

    it('answers the same instance twice with one activation: 201, then 200 with the same one', async () => {
      const first = await post(t, variant, ACTIVATE, { purchase_code: codes.twice, instance: 'machine-42' });
      const again = await post(t, variant, ACTIVATE, {
        purchase_code: ` ${codes.twice.toLowerCase()} `,
        instance: ' machine-42 ',
      });
      expect(first.statusCode).toBe(201);
      expectJson(again, 200, body(first));
      expect(await t.store.activations().ofCode(codes.twice.toLowerCase())).toHaveLength(1);
    });

    it('shows limit null for an item without one, and takes any number of instances', async () => {
      for (let index = 1; index <= 4; index++) {
        const response = await post(t, variant, ACTIVATE, {
          purchase_code: codes.unlimited,
          instance: `host-${index}`,
        });
        expect(response.statusCode).toBe(201);
        expect(body(response).data.activations).toEqual({ used: index, limit: null });
      }
    });

    it('answers a release of an instance the code does not hold with 404 activation_not_found', async () => {
      const response = await post(t, variant, RELEASE, {
        purchase_code: codes.unlimited,
        instance: 'never.example.com',
      });
      expectError(response, variant, 404, MESSAGES[variant.lang].unknown);
      expect(response.headers['x-error-code']).toBe('activation_not_found');
    });

    it.each([
      ['an unknown code', 'NO-SUCH-CODE'],
      ['another seller’s code', 'BO-CODE-1'],
      ['a refunded code', 'ANA-GONE-1'],
      ['a malformed code', 'bad code!'],
    ])('answers %s exactly as validation does, on both endpoints', async (_case, code) => {
      const validation = await post(t, variant, VALIDATE, { purchase_code: code });
      for (const path of [ACTIVATE, RELEASE]) {
        const response = await post(t, variant, path, { purchase_code: code, instance: 'x.example.com' });
        expect(response.statusCode).toBe(validation.statusCode);
        expect(response.body).toBe(validation.body);
        expect(response.headers['x-error-code']).toBe(validation.headers['x-error-code']);
        expect(response.headers['content-type']).toBe(validation.headers['content-type']);
      }
      expectError(validation, variant, 404, variant.messages.invalidPurchaseCode);
    });

    it('refuses a missing, blank or overlong instance with 400 naming it', async () => {
      for (const instance of [undefined, '   ', 'x'.repeat(256), 'bad\u0001name']) {
        const fields: Record<string, string> = { purchase_code: codes.unlimited };
        if (instance !== undefined) fields.instance = instance;
        expectParamError(await post(t, variant, ACTIVATE, fields), variant, 'instance');
      }
      const longest = await post(t, variant, ACTIVATE, { purchase_code: codes.transports, instance: 'é'.repeat(255) });
      expect(longest.statusCode).toBe(201);
    });

    it('reads purchase_code and instance from a form, multipart, JSON and the query string', async () => {
      const sends = [
        form([
          ['purchase_code', codes.transports],
          ['instance', 'form.example.com'],
        ]),
        multipart([
          ['purchase_code', codes.transports],
          ['instance', 'multipart.example.com'],
        ]),
      ];
      for (const send of sends) {
        const response = await t.app.inject({
          method: 'POST',
          url: url(variant, ACTIVATE),
          headers: { ...send.headers, 'x-api-key': KEY },
          payload: send.payload,
        });
        expect(response.statusCode, response.body).toBe(201);
      }
      const query = await t.app.inject({
        method: 'POST',
        url: url(variant, ACTIVATE, [
          ['purchase_code', codes.transports],
          ['instance', 'query.example.com'],
          ['api_key', KEY],
        ]),
      });
      expect(query.statusCode, query.body).toBe(201);
      const rows = await t.store.activations().ofCode(codes.transports.toLowerCase());
      expect(rows.map((row) => row.instance).slice(-3)).toEqual([
        'form.example.com',
        'multipart.example.com',
        'query.example.com',
      ]);
    });

    it('validates without instance byte for byte as before, and with one tells its activation (or null)', async () => {
      const plain = await post(t, variant, VALIDATE, { purchase_code: codes.limited });
      const purchase = body(plain).data.purchase;
      expectJson(plain, 200, { status: variant.ok, data: { purchase } });
      const [held] = await t.store.activations().ofCode(codes.limited.toLowerCase());
      const known = await post(t, variant, VALIDATE, { purchase_code: codes.limited, instance: held?.instance ?? '' });
      expectJson(known, 200, {
        status: variant.ok,
        data: {
          purchase,
          activation: {
            id: held?.id,
            instance: held?.instance,
            created_at: new Date(held?.created_at ?? 0).toISOString(),
          },
        },
      });
      const unknown = await post(t, variant, VALIDATE, { purchase_code: codes.limited, instance: 'elsewhere' });
      expectJson(unknown, 200, { status: variant.ok, data: { purchase, activation: null } });
      // The instance's "last validated" is written (once a minute at most).
      const after = await t.store.activations().ofCode(codes.limited.toLowerCase());
      expect(after.find((row) => row.id === held?.id)?.last_validated_at).toBeGreaterThan(0);
    });

    it('keeps the limit exact under concurrency: 10 instances at once at limit 3 make exactly 3', async () => {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          post(t, variant, ACTIVATE, { purchase_code: codes.crowd, instance: `crowd-${index}` }),
        ),
      );
      const statuses = answers.map((answer) => answer.statusCode).sort();
      expect(statuses).toEqual([201, 201, 201, 409, 409, 409, 409, 409, 409, 409]);
      expect(await t.store.activations().ofCode(codes.crowd.toLowerCase())).toHaveLength(3);
    });

    it('ends the code’s activations on a refund', async () => {
      await post(t, variant, ACTIVATE, { purchase_code: codes.refunded, instance: 'refund-a' });
      await post(t, variant, ACTIVATE, { purchase_code: codes.refunded, instance: 'refund-b' });
      expect(await t.store.activations().ofCode(codes.refunded.toLowerCase())).toHaveLength(2);
      await t.store.setPurchaseStatus(codes.refunded.toLowerCase(), 'refunded');
      expect(await t.store.activations().ofCode(codes.refunded.toLowerCase())).toEqual([]);
      const again = await post(t, variant, ACTIVATE, { purchase_code: codes.refunded, instance: 'refund-a' });
      expectError(again, variant, 404, variant.messages.invalidPurchaseCode);
    });
  });

  it('ends activations when an import refunds or cancels the purchase', async () => {
    const code = 'IMPORT-END-1';
    await t.importLines([purchaseLine(code, 501)]);
    const en = VARIANTS[0];
    expect((await post(t, en, ACTIVATE, { purchase_code: code, instance: 'imp' })).statusCode).toBe(201);
    await t.importLines([purchaseLine(code, 501, { status: 'cancelled' })]);
    expect(await t.store.activations().ofCode(code.toLowerCase())).toEqual([]);
  });

  it('sets and clears an item’s limit by import; a line without the field keeps it', async () => {
    await t.importLines([itemLine(504, 'ana', { activation_limit: 7 })]);
    expect(await t.store.activations().activationLimit(504)).toBe(7);
    await t.importLines([itemLine(504, 'ana')]);
    expect(await t.store.activations().activationLimit(504)).toBe(7);
    await t.importLines([itemLine(504, 'ana', { activation_limit: 'none' })]);
    expect(await t.store.activations().activationLimit(504)).toBeNull();
    await expect(t.importLines([itemLine(504, 'ana', { activation_limit: 0 })])).rejects.toThrow(/activation_limit/);
  });

  it('tells activation.created and activation.released to a subscribed endpoint, with the payload', async () => {
    const endpoint = newEndpointRow(
      {
        id: 'we_activations',
        account: 'ana',
        url: 'https://hooks.example.com/in',
        events: JSON.stringify(['activation.created', 'activation.released']),
        lang: 'en',
        secret_cipher: sealWebhookSecret(t.keys, generateWebhookSecret()),
      },
      Date.now(),
    );
    expect(await t.store.webhooks().createEndpoint(endpoint, 10)).toBe('created');
    const code = 'HOOKED-1';
    await t.importLines([purchaseLine(code, 501)]);
    const en = VARIANTS[0];
    const made = body(await post(t, en, ACTIVATE, { purchase_code: code, instance: 'hook.example.com' }));
    await post(t, en, RELEASE, { purchase_code: code, instance: 'hook.example.com' });
    await post(t, en, ACTIVATE, { purchase_code: code, instance: 'hook-2.example.com' });
    await t.store.setPurchaseStatus(code.toLowerCase(), 'refunded');
    const events = await storedEvents(t);
    const context = { variants: t.config.variants, support: t.config.support, item: (id: number) => t.store.item(id) };
    const payloads = await Promise.all(
      events.map(async (event) => JSON.parse(await webhookPayload(event, 'en', context))),
    );
    const datas = payloads.map((payload) => [payload.type, payload.data]);
    expect(datas).toHaveLength(4);
    expect(datas).toEqual(
      expect.arrayContaining([
        [
          'activation.created',
          { purchase_code: code, activation: made.data.activation, activations: { used: 1, limit: 2 } },
        ],
        ['activation.released', { purchase_code: code, activation: made.data.activation, reason: 'released' }],
        [
          'activation.created',
          {
            purchase_code: code,
            activation: { id: expect.any(String), instance: 'hook-2.example.com', created_at: expect.any(String) },
            activations: { used: 1, limit: 2 },
          },
        ],
        [
          'activation.released',
          {
            purchase_code: code,
            activation: { id: expect.any(String), instance: 'hook-2.example.com', created_at: expect.any(String) },
            reason: 'refunded',
          },
        ],
      ]),
    );
    expect(payloads.every((payload) => payload.account === 'ana')).toBe(true);
    // Each body is what its published schema (the OpenAPI document's webhooks, the SDK's types) says.
    const ajv = createContractAjv();
    for (const payload of payloads) {
      const validate = ajv.compile(webhookEventSchemas[payload.type] as TSchema);
      expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
      expect(keyOrderProblems(payload, webhookEventSchemas[payload.type] as TSchema)).toEqual([]);
    }
    await t.store.webhooks().deleteEndpoint('ana', 'we_activations');
  });

  it('keeps limits and activations through export and import into another store', async () => {
    const code = 'ROUND-TRIP-1';
    await t.importLines([purchaseLine(code, 501)]);
    const en = VARIANTS[0];
    await post(t, en, ACTIVATE, { purchase_code: code, instance: 'rt-1' });
    await post(t, en, ACTIVATE, { purchase_code: code, instance: 'rt-2' });
    await post(t, en, VALIDATE, { purchase_code: code, instance: 'rt-2' });
    const before = await t.store.activations().ofCode(code.toLowerCase());
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    await readSnapshot(t.config.store, (snapshot) => exportNdjson(snapshot, t.keys, out));
    const lines = Buffer.concat(chunks).toString('utf8').trim().split('\n');
    const item = lines.map((line) => JSON.parse(line)).find((line) => line.type === 'item' && line.id === 501);
    expect(item.activation_limit).toBe(2);
    const other = await createTestApp(kind);
    try {
      await other.importLines(lines);
      expect(await other.store.activations().activationLimit(501)).toBe(2);
      expect(await other.store.activations().ofCode(code.toLowerCase())).toEqual(before);
      const third = await post(other, en, ACTIVATE, { purchase_code: code, instance: 'rt-3' });
      expectError(third, en, 409, MESSAGES.en.limit);
    } finally {
      await other.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../sdk/dist/index.js';
import { accountLine, itemLine, purchaseLine } from '../api/store-lines.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';

/** The SDK's activate() and deactivate() as shipped (sdk/dist), against the real server on a real port. */

const KEY = 'sdk-activation-key-0123456789ab';

describe.each(TEST_STORES)('%s store: the SDK’s activations', (kind) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      lines: [
        accountLine('ana', KEY),
        itemLine(901, 'ana', { activation_limit: 1 }),
        ...VARIANTS.map((variant) => purchaseLine(`SDK-${variant.lang}-1`, 901)),
      ],
    });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(VARIANTS)('activates, finds the same again, reaches the limit, releases ($lang)', async (variant) => {
    const client = createClient({ baseUrl: `${origin}${variant.base}`, apiKey: KEY });
    const code = `SDK-${variant.lang}-1`;
    const purchase = await client.validatePurchase(code);
    const made = await client.activate(code, 'laptop-1');
    expect(made).toEqual({
      kind: 'created',
      activation: { id: expect.stringMatching(/^act_/), instance: 'laptop-1', created_at: expect.any(String) },
      activations: { used: 1, limit: 1 },
      purchase,
    });
    const again = await client.activate(code, 'laptop-1');
    expect(again).toEqual({ ...made, kind: 'existing' });
    expect(await client.activate(code, 'laptop-2')).toEqual({ kind: 'limit_reached' });
    expect(await client.activate('NO-SUCH-CODE', 'laptop-2')).toBeNull();
    expect(await client.deactivate(code, 'laptop-1')).toEqual({ used: 0, limit: 1 });
    expect(await client.deactivate(code, 'laptop-1')).toBeNull();
    expect(await client.deactivate('NO-SUCH-CODE', 'laptop-1')).toBeNull();
    expect((await client.activate(code, 'laptop-2'))?.kind).toBe('created');
  });
});

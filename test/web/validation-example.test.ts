import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SELLER } from '../../src/demo/demo-data.js';
import { type DemoCredentials, loadDemoData } from '../../src/demo/load-demo.js';
import { en } from '../../src/web/texts/en.js';
import { pt } from '../../src/web/texts/pt.js';
import { validationExample } from '../../src/web/validation-example.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { logIn } from './workspace-forms.js';

/** HTML-escaped as the page's template writes text. */
const escaped = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll("'", '&#39;');

describe('the validation examples', () => {
  it('PHP that runs as pasted: the code defined, the answer said; quotes in the values escaped', () => {
    const { php, curl } = validationExample(en, 'http://shop.test/api/purchases/validation', 'k3y', 'DEMO-VALID-0001');
    expect(php).toBe(
      [
        '<?php',
        '// The code the buyer entered: here one of your own codes, to try it.',
        "$purchaseCode = 'DEMO-VALID-0001';",
        "$ch = curl_init('http://shop.test/api/purchases/validation');",
        'curl_setopt_array($ch, [',
        '    CURLOPT_POST => true,',
        "    CURLOPT_HTTPHEADER => ['X-Api-Key: k3y'],",
        "    CURLOPT_POSTFIELDS => ['purchase_code' => $purchaseCode],",
        '    CURLOPT_RETURNTRANSFER => true,',
        ']);',
        '$answer = json_decode(curl_exec($ch), true);',
        '$valid = curl_getinfo($ch, CURLINFO_RESPONSE_CODE) === 200;',
        'curl_close($ch);',
        "echo $valid ? 'Valid purchase code' : 'Not a valid purchase code', PHP_EOL;",
      ].join('\n'),
    );
    expect(curl).toBe(
      [
        "curl -X POST 'http://shop.test/api/purchases/validation' \\",
        "  -H 'X-Api-Key: k3y' \\",
        "  -d 'purchase_code=DEMO-VALID-0001'",
      ].join('\n'),
    );
    const placeholder = validationExample(pt, "http://x.test/it's", 'k', undefined);
    expect(placeholder.php).toContain("$purchaseCode = 'CODIGO-DE-COMPRA';");
    expect(placeholder.php).toContain("$ch = curl_init('http://x.test/it\\'s');");
    expect(placeholder.php).toContain(
      "echo $valid ? 'Código de compra válido' : 'Código de compra inválido', PHP_EOL;",
    );
    expect(placeholder.curl).toContain("curl -X POST 'http://x.test/it'\\''s'");
  });
});

describe.each(TEST_STORES)('the demo seller’s Settings (%s)', (kind) => {
  let t: TestApp;
  let demo: DemoCredentials;
  beforeAll(async () => {
    t = await createTestApp(kind);
    demo = await loadDemoData(t.store, t.keys);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the key’s creation date as recorded, and the examples with the demo’s valid code', async () => {
    const created = (await t.store.keyDate(DEMO_SELLER))?.at;
    expect(await t.store.keyDate(DEMO_SELLER)).toEqual({ at: expect.any(Number), origin: 'made' });
    for (const base of ['', '/pt']) {
      const { jar } = await logIn(t.app, base, DEMO_SELLER, demo.password);
      const settings = await t.app.inject({ url: `${base}/workspace/settings`, cookies: jar });
      expect(settings.statusCode).toBe(200);
      expect(settings.body).toContain(
        `<time id="key-created" datetime="${new Date(created as number).toISOString()}">`,
      );
      expect(settings.body).not.toContain(base === '' ? en.settings.createdUnknown : pt.settings.createdUnknown);
      expect(settings.body).toContain(escaped("  -d 'purchase_code=DEMO-VALID-0001'"));
      expect(settings.body).toContain(escaped("$purchaseCode = 'DEMO-VALID-0001';"));
    }
  });
});

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_LINES, KEYS } from '../api/fixtures.js';
import { PHP_PATH } from '../global-setup.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

/** docs/api.md's PHP functions, exactly as published (the block of section 8 that opens with `<?php`). */
function publishedPhp(): string {
  const docs = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const section = docs.slice(docs.indexOf('## 8. Signed answers'));
  const block = /```php\n(<\?php\n[\s\S]*?)```/.exec(section);
  if (!block) throw new Error("docs/api.md's section 8 has no PHP block opening with <?php");
  return block[1] as string;
}

/** Runs each case through the published functions in PHP and returns what they answered. */
const DRIVER = `
$cases = json_decode(file_get_contents($argv[1]), true);
$results = [];
foreach ($cases as $case) {
    if ($case['kind'] === 'answer') {
        $results[] = marketplace_verify_answer($case['jwks'], $case['method'], $case['target'], $case['nonce'],
            $case['status'], $case['headers'], base64_decode($case['body']));
    } else {
        $results[] = marketplace_verify_license($case['jwks'], $case['token'], $case['now'] ?? null);
    }
}
echo json_encode($results);
`;

describe.each(TEST_STORES)("docs/api.md's PHP example (%s store)", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  it('accepts a signed answer and a token, refuses a tampered body, another nonce, an expired or changed token', async () => {
    const jwks = JSON.parse((await t.app.inject({ url: '/.well-known/jwks.json' })).body);
    const nonce = 'php-nonce-1';
    const target = '/api/purchases/validation?src=php';
    const answer = await t.app.inject({
      method: 'POST',
      url: target,
      headers: { 'x-api-key': KEYS.alice, 'signature-nonce': nonce },
      payload: { purchase_code: 'ALICE-REG-0001' },
    });
    expect(answer.statusCode).toBe(200);
    const tampered = Buffer.from(answer.rawPayload);
    tampered[tampered.indexOf('Regular')] = 'S'.charCodeAt(0);
    const license = await t.app.inject({
      method: 'POST',
      url: '/api/purchases/license',
      headers: { 'x-api-key': KEYS.alice },
      payload: { purchase_code: 'ALICE-REG-0001', instance: 'php-host' },
    });
    const token = (JSON.parse(license.body) as { data: { license: string } }).data.license;
    const [head, claims, signature] = token.split('.') as [string, string, string];
    const changedClaims = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(claims, 'base64url').toString()), license_type: 'Extended' }),
    ).toString('base64url');
    const exp = (JSON.parse(Buffer.from(claims, 'base64url').toString()) as { exp: number }).exp;

    const asAnswer = (body: Buffer, sentNonce = nonce) => ({
      kind: 'answer',
      jwks,
      method: 'POST',
      target,
      nonce: sentNonce,
      status: answer.statusCode,
      headers: answer.headers,
      body: body.toString('base64'),
    });
    const cases = [
      asAnswer(answer.rawPayload),
      asAnswer(tampered),
      asAnswer(answer.rawPayload, 'another-nonce'),
      { kind: 'license', jwks, token },
      { kind: 'license', jwks, token, now: exp },
      { kind: 'license', jwks, token: `${head}.${changedClaims}.${signature}` },
    ];
    const casesFile = join(t.dir, 'cases.json');
    const script = join(t.dir, 'check.php');
    writeFileSync(casesFile, JSON.stringify(cases));
    writeFileSync(script, `${publishedPhp()}${DRIVER}`);
    const output = execFileSync(PHP_PATH, [script, casesFile], { encoding: 'utf8' });
    const [valid, tamperedBody, otherNonce, claimsRead, expired, changed] = JSON.parse(output) as unknown[];
    expect([valid, tamperedBody, otherNonce]).toEqual([true, false, false]);
    expect(claimsRead).toMatchObject({
      iss: '/',
      purchase_code: 'ALICE-REG-0001',
      item_id: 101,
      license_type: 'Regular',
      instance: 'php-host',
      exp,
    });
    expect([expired, changed]).toEqual([null, null]);
  });
});

import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerTo } from '../helpers/http-answer.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from '../importer/import-fixtures.js';

const TOKEN = 'admin-token-0123456789abcdef';

/** POSTs `pieces` one at a time, `gapMs` apart: an upload slower than the server's request timeout. */
async function slowPost(port: number, path: string, headers: Record<string, string>, pieces: string[], gapMs: number) {
  const outgoing = request({ host: '127.0.0.1', port, method: 'POST', path, headers });
  const answer = answerTo(outgoing);
  for (const piece of pieces) {
    outgoing.write(piece);
    await delay(gapMs);
  }
  outgoing.end();
  return answer;
}

describe('an admin import slower to arrive than server.requestTimeoutSeconds', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({
      env: { ADMIN_TOKEN: TOKEN },
      configFile: { server: { requestTimeoutSeconds: 0.5, headersTimeoutSeconds: 0.5 } },
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('is not cut off (an API request that slow still is: 408)', async () => {
    const lines = [accountLine(), itemLine(), purchaseLine({ code: 'SLOW-1' })].map(
      (line) => `${JSON.stringify(line)}\n`,
    );
    // Three pieces 700 ms apart: 1.4 s, well past the 0.5 s timeout and its checks every 0.5 s.
    const imported = await slowPost(
      port,
      '/admin/v1/import',
      { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' },
      lines,
      700,
    );
    expect({ status: imported.status, body: JSON.parse(imported.body) }).toEqual({
      status: 200,
      body: {
        accounts: { inserted: 1, updated: 0, unchanged: 0 },
        items: { inserted: 1, updated: 0, unchanged: 0 },
        purchases: { inserted: 1, updated: 0, unchanged: 0 },
      },
    });
    const api = await slowPost(
      port,
      '/api/purchases/validation',
      { 'content-type': 'application/json' },
      ['{"purchase_code":', '"SLOW-1"', '}'],
      700,
    );
    expect(api.status).toBe(408);
  });
});

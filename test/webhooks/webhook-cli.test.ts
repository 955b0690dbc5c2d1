import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';
import { ndjsonText } from '../importer/import-fixtures.js';
import { LINES } from './fixtures.js';

describe.each(TEST_STORES)('npm run cli -- webhooks (%s)', (kind) => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const config = join(database.dir, 'config.json');
    writeFileSync(config, JSON.stringify({ webhooks: { allowHttp: true } }));
    env = cleanEnv({ ...database.env, MARKETPLACE_CONFIG: config });
    const file = join(database.dir, 'seed.ndjson');
    writeFileSync(file, ndjsonText(LINES));
    const imported = await runCli(['import', file], { cwd: database.dir, env });
    expect(imported.code, imported.stderr).toBe(0);
  });
  afterAll(() => database.drop());
  const cli = (...args: string[]) => runCli(args, { cwd: database.dir, env });

  it('adds, lists, tests, replays, rotates, disables and deletes an endpoint', async () => {
    const added = await cli(
      'webhooks',
      'add',
      'jdoe',
      'http://hooks.example.com/in',
      '--events',
      'purchase.created,purchase.refunded',
      '--lang',
      'pt',
    );
    expect(added.code, added.stderr).toBe(0);
    const [, id, secret] =
      added.stdout.match(/^id: (we_[0-9a-f]{32})\nsecret: (whsec_\S+)\n\(the secret is shown this once\)\n$/) ?? [];
    expect(secret).toMatch(/^whsec_/);

    const listed = await cli('webhooks', 'list', 'jdoe');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      {
        id,
        url: 'http://hooks.example.com/in',
        events: ['purchase.created', 'purchase.refunded'],
        lang: 'pt',
        enabled: true,
      },
    ]);
    expect(listed.stdout).not.toContain(secret as string);

    const tested = await cli('webhooks', 'test', 'jdoe', id as string);
    expect(tested.stdout).toMatch(/^evt_[0-9a-f]{32}: queued\n$/);
    const deliveries = await cli('webhooks', 'deliveries', 'jdoe', id as string);
    expect(JSON.parse(deliveries.stdout)).toMatchObject([
      { event_id: tested.stdout.split(':')[0], type: 'webhook.test', state: 'pending', attempts: 0 },
    ]);

    expect(await cli('webhooks', 'replay', 'jdoe', id as string, '--from', '2020-01-01T00:00:00Z')).toEqual({
      code: 0,
      stdout: `${id}: 0 events to send again\n`,
      stderr: '',
    });
    const rotated = await cli('webhooks', 'rotate-secret', 'jdoe', id as string);
    expect(rotated.stdout).toMatch(
      /^secret: whsec_\S+\n\(the secret is shown this once; the old one signs too until \d{4}-.*Z\)\n$/,
    );
    expect(await cli('webhooks', 'disable', 'jdoe', id as string)).toEqual({
      code: 0,
      stdout: `${id}: disabled\n`,
      stderr: '',
    });
    expect(JSON.parse((await cli('webhooks', 'list', 'jdoe')).stdout)).toMatchObject([
      { enabled: false, disabled_reason: 'seller' },
    ]);
    expect(await cli('webhooks', 'delete', 'jdoe', id as string)).toEqual({
      code: 0,
      stdout: `${id}: deleted\n`,
      stderr: '',
    });
    expect(JSON.parse((await cli('webhooks', 'list', 'jdoe')).stdout)).toEqual([]);
  }, 240_000);

  it('says what is wrong, exit 1', async () => {
    expect(await cli('webhooks', 'add', 'jdoe', 'http://x.example.com/', '--events', 'purchase.eaten')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'events: "purchase.eaten" is not one of purchase.created, purchase.refunded, purchase.cancelled, purchase.downloaded, api_key.rotated, activation.created, activation.released\n',
    });
    const config = join(database.dir, 'config.json');
    expect(await cli('webhooks', 'add', 'jdoe', 'https://localhost/in', '--events', 'purchase.created')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'url resolves to a private, loopback, link-local or reserved address, which webhooks are not sent to\n' +
        `(webhooks.allowHttp and webhooks.allowHosts were read from MARKETPLACE_CONFIG=${config})\n`,
    });
    expect(await cli('webhooks', 'list', 'nobody')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'no account named "nobody"\n',
    });
    expect(await cli('webhooks', 'delete', 'jdoe', 'we_none')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'no webhook endpoint of "jdoe"\n',
    });
  }, 120_000);
});

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkContractSource } from '../../src/schemas/typescript-source.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { ALL_LINES, ITEMS, KEYS, PURCHASES } from '../http/fixtures.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const SDK = join(ROOT, 'sdk');

const filesOf = (dir: string) => readdirSync(dir).sort();

describe('the SDK as committed', () => {
  it('has the types the schemas make (run `npm run sdk` after changing a schema)', () => {
    expect(readFileSync(join(SDK, 'src', 'contract.ts'), 'utf8')).toBe(sdkContractSource());
  });

  it('ships sdk/dist exactly as its sources build', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sdk-dist-'));
    try {
      await run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(SDK, 'tsconfig.json'), '--outDir', out]);
      expect(filesOf(join(SDK, 'dist'))).toEqual(filesOf(out));
      for (const name of filesOf(out)) {
        expect(readFileSync(join(SDK, 'dist', name), 'utf8'), name).toBe(readFileSync(join(out, name), 'utf8'));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('has no runtime dependency, and ESM with types', () => {
    const manifest = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8'));
    expect(manifest.name).toBe('@marketplace-api/client');
    expect(manifest.type).toBe('module');
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
  });
});

/** As the README says: `npm install <path to sdk>` in a project of one's own, then import it. */
describe.each(TEST_STORES)('%s store: the SDK installed into a scratch project', (kind) => {
  let t: TestApp;
  let origin: string;
  let project: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    project = mkdtempSync(join(tmpdir(), 'sdk-scratch-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', SDK], { cwd: project });
  });
  afterAll(async () => {
    await t.close();
    rmSync(project, { recursive: true, force: true });
  });

  it.each(VARIANTS)('$lang: validates a code, reads the account, null for an invalid code', async (variant) => {
    const script = join(project, 'check.mjs');
    writeFileSync(
      script,
      `import { createClient } from '@marketplace-api/client';
const client = createClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
const purchase = await client.validatePurchase(process.argv[4]);
const account = await client.account();
const invalid = await client.validatePurchase('NO-SUCH-CODE');
console.log(JSON.stringify({ code: purchase?.purchase_code, username: account.username, invalid }));
`,
    );
    const code = PURCHASES.regular.line.code as string;
    const { stdout } = await run(process.execPath, [script, `${origin}${variant.base}`, KEYS.alice, code], {
      cwd: project,
    });
    expect(JSON.parse(stdout)).toEqual({ code, username: 'alice', invalid: null });
  });

  it.each(VARIANTS)("$lang: runs the README's license check as written", async (variant) => {
    const readme = readFileSync(join(SDK, 'README.md'), 'utf8');
    const snippet = /## A license check in ten lines\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(snippet.trimEnd().split('\n')).toHaveLength(10);
    const script = join(project, 'license-check.mjs');
    writeFileSync(script, snippet.replace("'https://api.example.com'", JSON.stringify(`${origin}${variant.base}`)));
    const check = (code: string) =>
      run(process.execPath, [script, code], { cwd: project, env: { ...process.env, MARKETPLACE_API_KEY: KEYS.alice } });
    const valid = await check(PURCHASES.regular.line.code as string);
    expect(valid.stdout).toBe(`Licensed: Regular license of ${ITEMS.i101.line.name}\n`);
    expect((await check('NO-SUCH-CODE')).stdout).toBe('Not a valid purchase code\n');
  });
});

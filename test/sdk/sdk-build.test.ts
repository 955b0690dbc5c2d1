import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSdk } from '../../src/schemas/build-sdk.js';
import { sdkContractSource } from '../../src/schemas/typescript-source.js';
import { ALL_LINES, ITEMS, KEYS, PURCHASES } from '../api/fixtures.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const SDK = join(ROOT, 'sdk');

/** Every file under a directory, as paths relative to it. */
const filesOf = (dir: string) =>
  (
    readdirSync(dir, { recursive: true, withFileTypes: true }) as {
      isFile(): boolean;
      parentPath: string;
      name: string;
    }[]
  )
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();

describe('the SDK as committed', () => {
  it('has the types the schemas make (run `npm run sdk` after changing a schema)', () => {
    expect(readFileSync(join(SDK, 'src', 'contract.ts'), 'utf8')).toBe(sdkContractSource());
  });

  it('ships sdk/dist exactly as its sources build, ESM and CommonJS', () => {
    const out = mkdtempSync(join(tmpdir(), 'sdk-dist-'));
    try {
      buildSdk(out);
      expect(filesOf(join(SDK, 'dist'))).toEqual(filesOf(out));
      expect(filesOf(out)).toEqual(
        expect.arrayContaining(['index.js', 'index.d.ts', 'cjs/index.js', 'cjs/index.d.ts']),
      );
      for (const name of filesOf(out)) {
        expect(readFileSync(join(SDK, 'dist', name), 'utf8'), name).toBe(readFileSync(join(out, name), 'utf8'));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('has no runtime dependency; import and require each get their build and its types', () => {
    const manifest = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8'));
    expect(manifest.name).toBe('@marketplace-api/client');
    expect(manifest.type).toBe('module');
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.exports['.']).toEqual({
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/cjs/index.d.ts', default: './dist/cjs/index.js' },
    });
    expect(JSON.parse(readFileSync(join(SDK, 'dist', 'cjs', 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
  });
});

/** The README's two forms of the license check: ES module, then CommonJS. */
function readmeSnippets(): { esm: string; cjs: string } {
  const readme = readFileSync(join(SDK, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A license check in ten lines'));
  const [esm, cjs] = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  return { esm: esm ?? '', cjs: cjs ?? '' };
}

/**
 * As a newcomer does: the SDK packed (`npm pack`) and installed from its tarball into two fresh
 * projects, one made by `npm init -y` (CommonJS) and one with `"type": "module"`; the README's
 * examples run there, as written, against the real server.
 */
describe.each(TEST_STORES)('%s store: the SDK packed and installed into new projects', (kind) => {
  let t: TestApp;
  let origin: string;
  let scratch: string;
  let commonjs: string;
  let esm: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    scratch = mkdtempSync(join(tmpdir(), 'sdk-scratch-'));
    const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', scratch, SDK]);
    const tarball = join(scratch, stdout.trim().split('\n').at(-1) ?? '');
    commonjs = join(scratch, 'commonjs');
    esm = join(scratch, 'esm');
    for (const project of [commonjs, esm]) {
      await run('mkdir', [project]);
      await run('npm', ['init', '-y'], { cwd: project });
      await run('npm', ['install', '--no-audit', '--no-fund', tarball], { cwd: project });
    }
    const manifest = JSON.parse(readFileSync(join(esm, 'package.json'), 'utf8'));
    writeFileSync(join(esm, 'package.json'), JSON.stringify({ ...manifest, type: 'module' }));
  });
  afterAll(async () => {
    await t.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** The README's license check saved as `file` in `project`, run for a code: what it printed. */
  async function licenseCheck(project: string, file: string, snippet: string, base: string, code: string) {
    expect(snippet.trimEnd().split('\n').length).toBeLessThanOrEqual(10);
    const script = join(project, file);
    writeFileSync(script, snippet.replace("'https://api.example.com'", JSON.stringify(base)));
    const { stdout } = await run(process.execPath, [script, code], {
      cwd: project,
      env: { ...process.env, MARKETPLACE_API_KEY: KEYS.alice },
    });
    return stdout;
  }

  it.each(VARIANTS)("$lang: the README's examples, as written, in both kinds of project", async (variant) => {
    const { esm: esmSnippet, cjs: cjsSnippet } = readmeSnippets();
    expect(esmSnippet).toContain("import { createClient, MarketplaceApiError } from '@marketplace-api/client';");
    expect(cjsSnippet).toContain("require('@marketplace-api/client')");
    const base = `${origin}${variant.base}`;
    const licensed = `Licensed: Regular license of ${ITEMS.i101.line.name}\n`;
    const valid = PURCHASES.regular.line.code as string;
    const runs = [
      // `npm init -y`: a .js file is CommonJS there, an .mjs file an ES module.
      { project: commonjs, file: 'check.js', snippet: cjsSnippet },
      { project: commonjs, file: 'check.mjs', snippet: esmSnippet },
      { project: esm, file: 'check.js', snippet: esmSnippet },
      { project: esm, file: 'check.cjs', snippet: cjsSnippet },
    ];
    for (const { project, file, snippet } of runs) {
      expect(await licenseCheck(project, file, snippet, base, valid), file).toBe(licensed);
      expect(await licenseCheck(project, file, snippet, base, 'NO-SUCH-CODE'), file).toBe(
        'Not a valid purchase code\n',
      );
    }
  });

  it('gives TypeScript the types through import and through require', async () => {
    writeFileSync(
      join(commonjs, 'typed.cts'),
      `import { createClient, type Purchase } from '@marketplace-api/client';
const found: Promise<Purchase | null> = createClient({ baseUrl: 'http://x', apiKey: 'k' }).validatePurchase('c');
// @ts-expect-error: a purchase code is a string
createClient({ baseUrl: 'http://x', apiKey: 'k' }).validatePurchase(1);
export { found };
`,
    );
    writeFileSync(
      join(commonjs, 'typed.mts'),
      `import { createClient, type Item } from '@marketplace-api/client';
const items: Item[] = await createClient({ baseUrl: 'http://x', apiKey: 'k' }).items();
// @ts-expect-error: an item id is a number
await createClient({ baseUrl: 'http://x', apiKey: 'k' }).item('7');
export { items };
`,
    );
    const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      '',
      'typed.cts',
      'typed.mts',
    ];
    const { stdout } = await run(tsc, args, { cwd: commonjs }).catch((error: { stdout: string }) => ({
      stdout: error.stdout,
    }));
    expect(stdout).toBe('');
    // Each file resolved its own build: the CommonJS declarations for require, the ESM ones for import.
    const { stdout: trace } = await run(tsc, [...args, '--traceResolution'], { cwd: commonjs });
    expect(trace).toContain('dist/cjs/index.d.ts');
    expect(trace).toMatch(/dist\/index\.d\.ts/);
  });
});

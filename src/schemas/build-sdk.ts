import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root, where sdk/ and node_modules/.bin/tsc are. */
const ROOT = join(import.meta.dirname, '..', '..');
const SDK = join(ROOT, 'sdk');

/**
 * Builds the SDK both ways into `outDir` (sdk/dist by default): ES modules at its top for
 * `import`, CommonJS under `cjs/` for `require` (sdk/package.json's `exports` names each, with
 * its own declarations). `cjs/package.json` says `"type": "commonjs"`, so Node and TypeScript
 * read those files as CommonJS inside a package that is otherwise ESM.
 */
export function buildSdk(outDir = join(SDK, 'dist')): void {
  const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
  execFileSync(tsc, ['-p', join(SDK, 'tsconfig.json'), '--outDir', outDir], { stdio: 'inherit' });
  const cjs = join(outDir, 'cjs');
  execFileSync(tsc, ['-p', join(SDK, 'tsconfig.cjs.json'), '--outDir', cjs], { stdio: 'inherit' });
  mkdirSync(cjs, { recursive: true });
  writeFileSync(join(cjs, 'package.json'), '{ "type": "commonjs" }\n');
}

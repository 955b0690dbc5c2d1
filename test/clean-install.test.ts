import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const read = (name: string) => JSON.parse(readFileSync(join(ROOT, name), 'utf8'));

/** What a newcomer's `npm ci` would say, without installing anything. */
describe('a clean install', () => {
  it('npm ci warns about nothing on this Node (no EBADENGINE): a dry run over the lock file', async () => {
    // A directory with only the manifest and the lock: npm plans the install from them and checks
    // every locked package's engines against this Node, then stops (no download, no script).
    const dir = mkdtempSync(join(tmpdir(), 'clean-install-'));
    try {
      for (const name of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, name), join(dir, name));
      const { stderr } = await run('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: dir,
      });
      expect(stderr).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("approves every locked package's install script in allowScripts (npm 11's advisory), and no other", () => {
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .sort();
    expect(withScripts).toEqual(['better-sqlite3', 'esbuild']);
    expect(read('package.json').allowScripts).toEqual(Object.fromEntries(withScripts.map((name) => [name, true])));
  });
});

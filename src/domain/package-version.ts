import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The service's version: package.json's, found from this file (`src/domain/` under tsx, `dist/src/domain/`
 * when built), so `--version` and the OpenAPI documents say what is installed.
 */
export function packageVersion(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'marketplace-api' && manifest.version) return manifest.version;
    } catch {
      // No package.json here: look in the parent.
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error('package.json of marketplace-api not found');
    directory = parent;
  }
}

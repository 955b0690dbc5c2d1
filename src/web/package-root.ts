import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding the project's package.json, found from this file: `src/web/` when run
 * with tsx, `dist/src/web/` when built, so templates and assets resolve the same way in both.
 */
export function packageRoot(from: string = import.meta.url): string {
  let directory = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(directory, 'package.json')) && existsSync(join(directory, 'web'))) return directory;
    const parent = dirname(directory);
    if (parent === directory) throw new Error('package root not found above the workspace module');
    directory = parent;
  }
}

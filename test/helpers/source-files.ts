import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The service's sources. */
export const SRC = resolve(import.meta.dirname, '../../src');

/** Every `.ts` file below `dir`, its path whole. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

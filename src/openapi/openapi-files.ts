import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { buildOpenApiDocument } from './openapi-document.js';

/** Where the shipped variants' documents are committed. */
export const OPENAPI_DIR = 'openapi';

/**
 * The shipped default config's documents (`openapi/en.json`, `openapi/pt.json`) as file texts,
 * by file name: what `npm run openapi` writes and a test compares with the committed files.
 */
export function shippedOpenApiFiles(): ReadonlyMap<string, string> {
  // No environment: the shipped defaults (config.ts), whatever this shell has set.
  const config = loadConfig({});
  return new Map(
    config.variants.map((variant) => [
      `${variant.lang}.json`,
      `${JSON.stringify(buildOpenApiDocument(variant, config.support), null, 2)}\n`,
    ]),
  );
}

/** Writes the shipped documents under `root`/openapi; returns the paths written. */
export function writeOpenApiFiles(root: string): string[] {
  const dir = join(root, OPENAPI_DIR);
  mkdirSync(dir, { recursive: true });
  return [...shippedOpenApiFiles()].map(([name, text]) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  });
}

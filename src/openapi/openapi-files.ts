import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EndpointSettings } from '../api/endpoint.js';
import type { VariantConfig } from '../variants/variant-config.js';
import { buildOpenApiDocument } from './openapi-document.js';

/** What the documents are built from: the variants, whether support fields are served, and the endpoints' config-bound limits. */
export interface OpenApiConfig extends EndpointSettings {
  readonly variants: readonly VariantConfig[];
  readonly support: boolean;
}

/** Where the shipped variants' documents are committed. */
export const OPENAPI_DIR = 'openapi';

/**
 * The documents of a config's variants (`openapi/en.json`, `openapi/pt.json` for the shipped
 * defaults) as file texts, by file name: what `npm run openapi` writes and a test compares with the
 * committed files.
 */
export function openApiFiles(config: OpenApiConfig): ReadonlyMap<string, string> {
  return new Map(
    config.variants.map((variant) => [
      `${variant.lang}.json`,
      `${JSON.stringify(buildOpenApiDocument(variant, config.support, undefined, config), null, 2)}\n`,
    ]),
  );
}

/** Writes the config's documents under `root`/openapi; returns the paths written. */
export function writeOpenApiFiles(root: string, config: OpenApiConfig): string[] {
  const dir = join(root, OPENAPI_DIR);
  mkdirSync(dir, { recursive: true });
  return [...openApiFiles(config)].map(([name, text]) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  });
}

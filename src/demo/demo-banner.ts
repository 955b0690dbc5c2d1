import type { VariantConfig } from '../variants/variant-config.js';
import { DEMO_ITEM_ID, DEMO_PURCHASE_CODE, DEMO_SELLER } from './demo-data.js';
import type { DemoCredentials } from './load-demo.js';

/** What the banners read of the config: where the server listens, and its variants. */
interface BannerConfig {
  readonly host: string;
  readonly variants: readonly VariantConfig[];
}

/** Where a variant can be reached from this machine, for the printed URLs and curl lines. */
function baseUrlOf(variant: VariantConfig, config: BannerConfig, port: number): string {
  if (variant.host !== undefined) return `http://${variant.host}${variant.prefix}`;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}${variant.prefix}`;
}

/**
 * The text printed on every start, once the port is open: per variant, where its API, its docs
 * and its workspace login are. No key or password: those are the demo banner's, shown once.
 */
export function addressBanner(config: BannerConfig, port: number, version: string): string {
  const lines = [`marketplace-api ${version} is ready.`];
  for (const variant of config.variants) {
    const base = baseUrlOf(variant, config, port);
    lines.push(
      `  ${variant.lang} (${variant.currency})`,
      `    API:       ${base}/api/`,
      `    docs:      ${base}/docs`,
      `    workspace: ${base}/login`,
    );
  }
  lines.push('Stop with Ctrl-C.');
  return `${lines.join('\n')}\n`;
}

/** The text printed once, after the demo data was loaded: the key and a ready curl line per endpoint and variant. */
export function demoBanner(config: BannerConfig, port: number, { key, password }: DemoCredentials): string {
  const rule = '='.repeat(78);
  const lines = [
    rule,
    'DEMO DATA: the store was empty, so it was filled with demo sellers, items and purchases.',
    'Do not use it in production. This is shown once; see the key again with:',
    `  npm run cli -- keys show ${DEMO_SELLER}`,
    '',
    `API key of "${DEMO_SELLER}": ${key}`,
    '',
    `Workspace login (Settings → API Key): username "${DEMO_SELLER}", password "${password}"`,
    '(set another with: npm run cli -- accounts set-password demo-seller)',
  ];
  for (const variant of config.variants) {
    const base = baseUrlOf(variant, config, port);
    lines.push(
      '',
      `Variant ${variant.lang} (${variant.currency}):`,
      `  log in: ${base}/login`,
      `  docs:   ${base}/docs (Authorize with the key above, then Try it out)`,
      `  curl -s '${base}/api/account/details' -H 'X-Api-Key: ${key}'`,
      `  curl -s '${base}/api/items/all' -H 'Authorization: Bearer ${key}'`,
      `  curl -s '${base}/api/items/item?item_id=${DEMO_ITEM_ID}&api_key=${key}'`,
      `  curl -s -X POST '${base}/api/purchases/validation' -H 'X-Api-Key: ${key}' -d 'purchase_code=${DEMO_PURCHASE_CODE}'`,
    );
  }
  lines.push(rule);
  return `${lines.join('\n')}\n`;
}

/** What a start found in the store, for the hint of what to do next. */
export type StoreFinding = 'demo' | 'empty' | 'other';

/**
 * The lines printed after the address banner on a start that loaded no demo data: with the demo
 * seller in the store, how to see its key and set its password again (both were shown once, on
 * the first start); with no seller at all, how to add the first ones. Nothing otherwise.
 */
export function nextStepsBanner(finding: StoreFinding): string {
  if (finding === 'demo') {
    return [
      `Demo data is in this store. See the key of "${DEMO_SELLER}" again:`,
      `  npm run cli -- keys show ${DEMO_SELLER}`,
      'Set its workspace password again (then log in as demo-seller):',
      `  npm run cli -- accounts set-password ${DEMO_SELLER}`,
      '',
    ].join('\n');
  }
  if (finding === 'empty') {
    return [
      'The store has no seller yet. Add the first ones:',
      '  from an NDJSON file (format: docs/api.md#importing):',
      '    npm run cli -- import sellers.ndjson',
      "  or from a MarketBob marketplace's database (docs/marketbob.md):",
      '    MARKETBOB_DATABASE_URL=mysql://user:password@host/db npm run cli -- marketbob sync',
      '',
    ].join('\n');
  }
  return '';
}

import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's browser bundle, from node_modules (a devDependency). */
const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/** Where the page loads it from: its own origin, which the pages' `script-src 'self'` allows. */
const AXE_URL_PATH = '/__test-only__/axe.min.js';

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly string[];
}

/**
 * The serious and critical accessibility violations axe-core finds in the page as it is now.
 * `addScriptTag({ path })` would inline the bundle, which the pages' strict CSP refuses (and
 * bypassing the CSP would hide a page that breaks it), so the bundle is served to this page alone,
 * by a Playwright route, from the page's own origin, and added with `addScriptTag({ url })`.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  const url = new URL(AXE_URL_PATH, page.url()).href;
  await page.route(url, (route) => route.fulfill({ path: AXE_PATH, contentType: 'text/javascript; charset=utf-8' }));
  try {
    await page.addScriptTag({ url });
  } finally {
    await page.unroute(url);
  }
  // A string, evaluated in the page: the tests' tsconfig has no DOM types.
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((node) => node.target.join(' ')),
    })))`,
  )) as AxeViolation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Collects what Chromium reports of the page's Content-Security-Policy refusals (inline style, script...). */
export function watchCspRefusals(page: Page): string[] {
  const refusals: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) refusals.push(message.text());
  });
  return refusals;
}

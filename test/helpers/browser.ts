import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { CHROMIUM_PATH } from '../global-setup.js';

/** Where browser tests save their screenshots (gitignored): look at them after a change to a page. */
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-output', 'screenshots');

/** A headless Debian Chromium over a fresh profile; `close` ends it and removes the profile. */
export interface TestBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Starts Chromium as it works on these machines (STACK-NOTES): a persistent context over a new
 * profile directory, and none of the background connections a closed network refuses.
 */
export async function launchTestBrowser(): Promise<TestBrowser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'marketplace-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

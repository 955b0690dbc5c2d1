import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../helpers/source-files.js';

/** An insert of an event, by Kysely or in SQL text. */
const WRITES_EVENTS = /insertInto\(\s*'webhook_events'\s*\)|INSERT INTO webhook_events\b/;

describe('the webhook outbox', () => {
  it('has one writer of events: the store, the test event and both imports hand it their changes', () => {
    const writers = sourceFiles(SRC)
      .filter((file) => !file.includes('/migrations/') && WRITES_EVENTS.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(writers).toEqual(['store/webhooks/webhook-outbox.ts']);
  });
});

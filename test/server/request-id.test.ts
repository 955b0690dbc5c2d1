import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/server/request-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newRequestId', () => {
  it('counts in the last ten hex digits under one prefix, across the places where the high digits change', () => {
    const ids = Array.from({ length: 10_000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
    const prefixes = new Set(ids.map((id) => id.slice(0, 26)));
    expect(prefixes.size).toBe(1);
    const counts = ids.map((id) => Number.parseInt(id.slice(26), 16));
    counts.forEach((count, at) => {
      if (at > 0) expect(count).toBe((counts[at - 1] as number) + 1);
    });
  });
});

import { describe, expect, it } from 'vitest';
import { codeRowsCsv, dayChart } from '../../src/web/purchase-codes-page.js';

describe('the Purchase codes CSV', () => {
  it('writes a header and a line per code, quoting what needs it and defusing spreadsheet formulas', () => {
    const at = Date.parse('2026-03-01T10:00:00.000Z');
    const row = {
      code: 'ABC-1',
      itemId: 7,
      itemName: 'Theme, "Pro"',
      purchasedAt: '2024-01-02T00:00:00.000Z',
      status: 'refunded' as const,
      validations: 12,
      networks: 5,
      firstSeen: at,
      lastSeen: at + 1,
    };
    expect(
      codeRowsCsv([row, { ...row, code: '-A1', itemName: '=HYPERLINK("x")' }, { ...row, itemName: undefined }]),
    ).toBe(
      'purchase_code,item_id,item_name,purchase_date,status,validations,networks,first_seen,last_seen\r\n' +
        'ABC-1,7,"Theme, ""Pro""",2024-01-02T00:00:00.000Z,refunded,12,5,2026-03-01T10:00:00.000Z,2026-03-01T10:00:00.001Z\r\n' +
        `'-A1,7,"'=HYPERLINK(""x"")",2024-01-02T00:00:00.000Z,refunded,12,5,2026-03-01T10:00:00.000Z,2026-03-01T10:00:00.001Z\r\n` +
        'ABC-1,7,,2024-01-02T00:00:00.000Z,refunded,12,5,2026-03-01T10:00:00.000Z,2026-03-01T10:00:00.001Z\r\n',
    );
  });
});

describe('the per-day chart', () => {
  it('has a bar per day of the last 30, oldest first, days without validations at zero, scaled to the busiest', () => {
    const now = Date.parse('2026-03-30T12:00:00.000Z');
    const chart = dayChart(
      {
        validations: 15,
        networks: 3,
        firstSeen: now,
        lastSeen: now,
        days: [
          { date: '2026-03-30', validations: 10, networks: 3 },
          { date: '2026-03-01', validations: 5, networks: 1 },
          { date: '2026-02-28', validations: 99, networks: 9 },
        ],
      },
      now,
    );
    expect(chart.bars).toHaveLength(30);
    expect([chart.bars[0]?.date, chart.bars[29]?.date]).toEqual(['2026-03-01', '2026-03-30']);
    expect([chart.max, chart.total, chart.busiest?.date]).toEqual([10, 15, '2026-03-30']);
    expect(chart.bars.filter((bar) => bar.height > 0).map((bar) => [bar.date, bar.height])).toEqual([
      ['2026-03-01', 56],
      ['2026-03-30', 112],
    ]);
    expect(chart.bars[29]).toMatchObject({ y: 8, height: 112 });
  });
});

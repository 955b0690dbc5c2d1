import { describe, expect, it } from 'vitest';
import { type LineChunk, ndjsonLines } from '../../src/importer/ndjson-lines.js';

async function* chunks(...parts: (string | Uint8Array)[]) {
  yield* parts;
}

async function collect(input: AsyncIterable<string | Uint8Array>) {
  const seen: LineChunk[] = [];
  for await (const chunk of ndjsonLines(input)) seen.push(chunk);
  const lines: [number, string][] = [];
  for (const chunk of seen) {
    for (const [index, line] of chunk.lines.entries()) lines.push([chunk.firstLineNumber + index, line]);
  }
  return { lines, bytesRead: seen.at(-1)?.bytesRead };
}

describe('ndjsonLines', () => {
  it('numbers physical lines across chunks, blank ones included', async () => {
    const { lines, bytesRead } = await collect(chunks('a\n\nb', 'c\r\n', '\nd'));
    expect(lines).toEqual([
      [1, 'a'],
      [2, ''],
      [3, 'bc'],
      [4, ''],
      [5, 'd'],
    ]);
    expect(bytesRead).toBe(9);
  });

  it('decodes UTF-8 split between chunks and drops a byte order mark', async () => {
    const bytes = Buffer.from('\uFEFF{"name":"José"}\nZoë\n', 'utf8');
    const split = bytes.indexOf(0xa9); // the second byte of "é"
    const { lines, bytesRead } = await collect(chunks(bytes.subarray(0, split), bytes.subarray(split)));
    expect(lines).toEqual([
      [1, '{"name":"José"}'],
      [2, 'Zoë'],
    ]);
    expect(bytesRead).toBe(bytes.length);
  });

  it('reads nothing from nothing', async () => {
    expect((await collect(chunks())).lines).toEqual([]);
    expect((await collect(chunks(''))).lines).toEqual([]);
  });
});

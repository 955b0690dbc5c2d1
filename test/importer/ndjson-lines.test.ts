import { describe, expect, it } from 'vitest';
import {
  LINE_TOO_LONG,
  type LineChunk,
  MAX_LINE_CHARS,
  type NdjsonLine,
  ndjsonLines,
} from '../../src/importer/ndjson-lines.js';

async function* chunks(...parts: (string | Uint8Array)[]) {
  yield* parts;
}

async function collect(input: AsyncIterable<string | Uint8Array>, maxChars?: number) {
  const seen: LineChunk[] = [];
  for await (const chunk of ndjsonLines(input, maxChars)) seen.push(chunk);
  const lines: [number, NdjsonLine][] = [];
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

  it('gives a line over the cap as LINE_TOO_LONG, whether it comes in one chunk or many', async () => {
    const { lines } = await collect(
      chunks('12345\n123456\n1234\r\n', '123', '45\r\n12', '3456', '78\n', 'ab', 'cdefgh', 'ij\nok\n', 'x'.repeat(9)),
      5,
    );
    expect(lines).toEqual([
      [1, '12345'],
      [2, LINE_TOO_LONG],
      [3, '1234'],
      // Five characters and a `\r` before the `\n`: within the cap.
      [4, '12345'],
      [5, LINE_TOO_LONG],
      [6, LINE_TOO_LONG],
      [7, 'ok'],
      // The last line, without a line end.
      [8, LINE_TOO_LONG],
    ]);
  });

  it('never holds an over-long line whole: 600 MiB in one line is read in bounded memory', async () => {
    // Past V8's longest string (about 512 Mi characters): a reader that kept the line would throw
    // "Invalid string length" here. The same 1 MiB string is handed over and over: nothing is allocated.
    const mebibyte = 'x'.repeat(1024 * 1024);
    async function* huge() {
      yield '{"type":"account"}\n';
      for (let n = 0; n < 600; n += 1) yield mebibyte;
      yield '\n{"type":"item"}\n';
    }
    const { lines, bytesRead } = await collect(huge());
    expect(lines).toEqual([
      [1, '{"type":"account"}'],
      [2, LINE_TOO_LONG],
      [3, '{"type":"item"}'],
    ]);
    expect(bytesRead).toBe(600 * 1024 * 1024 + 19 + 17);
    expect(MAX_LINE_CHARS).toBe(1024 * 1024);
  });
});

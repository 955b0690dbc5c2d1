import { StringDecoder } from 'node:string_decoder';

/**
 * The longest line an import reads: 1 MiB of characters (1,048,576 UTF-16 code units, so 1 MiB for
 * ASCII text and at most 3 MiB of UTF-8). The longest legitimate line, an account with every field
 * at its longest or an item with a long description, is a few tens of KiB; a line past this is
 * reported as a bad line and never held whole: without a cap, a huge line was held whole in
 * memory, past V8's longest string, and failed as a 500 ("Invalid string length").
 */
export const MAX_LINE_CHARS = 1024 * 1024;

/** Stands in `LineChunk.lines` for a line over MAX_LINE_CHARS: its text was dropped as it came. */
export const LINE_TOO_LONG: unique symbol = Symbol('line too long');

/** A line's text, or LINE_TOO_LONG. */
export type NdjsonLine = string | typeof LINE_TOO_LONG;

/** The lines completed by one chunk of input. */
export interface LineChunk {
  /** The physical, 1-based number of the first line in `lines`. */
  readonly firstLineNumber: number;
  /** Without their line ends (`\n` or `\r\n`); blank lines included, so numbers stay physical. */
  readonly lines: readonly NdjsonLine[];
  /** Bytes of input read so far (UTF-8 bytes for string input). */
  readonly bytesRead: number;
}

/** What the importer reads: a byte or text stream (a file, stdin, `Readable.from(strings)`). */
export type NdjsonInput = AsyncIterable<string | Uint8Array>;

/** A line's text without its `\r`, or LINE_TOO_LONG. */
function finished(line: string, maxChars: number): NdjsonLine {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  return text.length > maxChars ? LINE_TOO_LONG : text;
}

/**
 * Splits a stream into lines, chunk by chunk, holding only the current chunk and the unfinished
 * line in memory. Bytes are decoded as UTF-8, also across chunk boundaries; a byte order mark
 * at the start is dropped. A last line without a line end still counts. A line longer than
 * `maxChars` comes as LINE_TOO_LONG, and its text is dropped as soon as it is over: memory stays
 * within `maxChars` and one chunk, however long the line.
 */
export async function* ndjsonLines(input: NdjsonInput, maxChars = MAX_LINE_CHARS): AsyncGenerator<LineChunk> {
  const decoder = new StringDecoder('utf8');
  let bytesRead = 0;
  let nextLineNumber = 1;
  let unfinished = '';
  /** The unfinished line went over the cap: its text is gone, and the rest of it is skipped. */
  let overlong = false;
  let atStart = true;
  for await (const chunk of input) {
    let text: string;
    if (typeof chunk === 'string') {
      text = chunk;
      bytesRead += Buffer.byteLength(chunk, 'utf8');
    } else {
      text = decoder.write(chunk as Buffer);
      bytesRead += chunk.byteLength;
    }
    if (atStart && text !== '') {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      atStart = false;
    }
    const lines: NdjsonLine[] = [];
    let start = 0;
    let end = text.indexOf('\n');
    while (end !== -1) {
      if (start === 0) {
        // The end of the line the previous chunks left unfinished (+ 1: a `\r` before the `\n` is no part of it).
        lines.push(
          overlong || unfinished.length + end > maxChars + 1
            ? LINE_TOO_LONG
            : finished(unfinished + text.slice(0, end), maxChars),
        );
        unfinished = '';
        overlong = false;
      } else {
        lines.push(finished(text.slice(start, end), maxChars));
      }
      start = end + 1;
      end = text.indexOf('\n', start);
    }
    // While in an over-long line, what comes of it is dropped.
    if (!overlong) {
      if (unfinished.length + text.length - start > maxChars + 1) {
        overlong = true;
        unfinished = '';
      } else {
        unfinished = start === 0 ? unfinished + text : text.slice(start);
      }
    }
    yield { firstLineNumber: nextLineNumber, lines, bytesRead };
    nextLineNumber += lines.length;
  }
  const rest = decoder.end();
  if (overlong) {
    yield { firstLineNumber: nextLineNumber, lines: [LINE_TOO_LONG], bytesRead };
  } else if (unfinished + rest !== '') {
    yield { firstLineNumber: nextLineNumber, lines: [finished(unfinished + rest, maxChars)], bytesRead };
  }
}

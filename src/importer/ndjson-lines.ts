import { StringDecoder } from 'node:string_decoder';

/** The lines completed by one chunk of input. */
export interface LineChunk {
  /** The physical, 1-based number of the first line in `lines`. */
  readonly firstLineNumber: number;
  /** Without their line ends (`\n` or `\r\n`); blank lines included, so numbers stay physical. */
  readonly lines: readonly string[];
  /** Bytes of input read so far (UTF-8 bytes for string input). */
  readonly bytesRead: number;
}

/** What the importer reads: a byte or text stream (a file, stdin, `Readable.from(strings)`). */
export type NdjsonInput = AsyncIterable<string | Uint8Array>;

/**
 * Splits a stream into lines, chunk by chunk, holding only the current chunk and the unfinished
 * line in memory. Bytes are decoded as UTF-8, also across chunk boundaries; a byte order mark
 * at the start is dropped. A last line without a line end still counts.
 */
export async function* ndjsonLines(input: NdjsonInput): AsyncGenerator<LineChunk> {
  const decoder = new StringDecoder('utf8');
  let bytesRead = 0;
  let nextLineNumber = 1;
  let unfinished = '';
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
    const lines: string[] = [];
    let start = 0;
    let end = text.indexOf('\n');
    while (end !== -1) {
      const line = start === 0 ? unfinished + text.slice(0, end) : text.slice(start, end);
      if (start === 0) unfinished = '';
      lines.push(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = end + 1;
      end = text.indexOf('\n', start);
    }
    unfinished = start === 0 ? unfinished + text : text.slice(start);
    yield { firstLineNumber: nextLineNumber, lines, bytesRead };
    nextLineNumber += lines.length;
  }
  const last = unfinished + decoder.end();
  if (last !== '') {
    yield { firstLineNumber: nextLineNumber, lines: [last.endsWith('\r') ? last.slice(0, -1) : last], bytesRead };
  }
}

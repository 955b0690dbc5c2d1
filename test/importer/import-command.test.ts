import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runImportCommand } from '../../src/importer/import-command.js';
import { MAX_LINE_CHARS } from '../../src/importer/ndjson-lines.js';
import { TEST_STORES } from '../helpers/test-database.js';
import {
  accountLine,
  itemLine,
  keys,
  ndjsonText,
  purchaseLine,
  type TempStore,
  tempStores,
} from './import-fixtures.js';

describe.each(TEST_STORES)('import command (%s)', (kind) => {
  const newTempStore = tempStores(kind);
  let temp: TempStore;
  beforeEach(async () => {
    temp = await newTempStore();
  });
  afterEach(async () => {
    await temp.close();
  });

  /** A stream that keeps what is written to it; `isTTY` as asked. */
  function capture(isTTY = false): Writable & { text(): string; isTTY: boolean } {
    let text = '';
    const stream = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    return Object.assign(stream, { text: () => text, isTTY });
  }

  function writeFile(name: string, lines: readonly (string | object)[]): string {
    const path = join(temp.dir, name);
    writeFileSync(path, `${ndjsonText(lines)}\n`);
    return path;
  }

  async function run(file: string, stdin?: Readable, stderr = capture()) {
    const stdout = capture();
    const ok = await runImportCommand({ store: temp.store, keys, file, stdout, stderr, ...(stdin ? { stdin } : {}) });
    return { ok, stdout: stdout.text(), stderr: stderr.text() };
  }

  describe('runImportCommand', () => {
    it('prints the counts per type on success', async () => {
      const file = writeFile('good.ndjson', [
        accountLine(),
        itemLine(),
        purchaseLine(),
        purchaseLine({ code: 'other' }),
      ]);
      expect(await run(file)).toEqual({
        ok: true,
        stdout:
          'accounts: 1 inserted, 0 updated, 0 unchanged\nitems: 1 inserted, 0 updated, 0 unchanged\n' +
          'purchases: 2 inserted, 0 updated, 0 unchanged\n',
        stderr: '',
      });
      expect(await run(file)).toEqual({
        ok: true,
        stdout:
          'accounts: 0 inserted, 0 updated, 1 unchanged\nitems: 0 inserted, 0 updated, 1 unchanged\n' +
          'purchases: 0 inserted, 0 updated, 2 unchanged\n',
        stderr: '',
      });
    });

    it('prints the bad lines and says nothing was written', async () => {
      const file = writeFile('bad.ndjson', [
        accountLine(),
        '',
        itemLine({ version: '1.2' }),
        purchaseLine({ price: '1.001' }),
      ]);
      expect(await run(file)).toEqual({
        ok: false,
        stdout: '',
        stderr:
          'line 3: item: version must be major.minor.patch, such as 1.2.3\n' +
          'line 4: purchase: price must have at most two decimals\n' +
          'import failed: 2 bad lines; nothing was written\n',
      });
      expect((await temp.snapshot()).accounts).toEqual([]);
    });

    it('lists 50 bad lines and says how many more there are', async () => {
      const file = writeFile(
        'many.ndjson',
        Array.from({ length: 53 }, () => '{'),
      );
      const { ok, stderr } = await run(file);
      expect(ok).toBe(false);
      const lines = stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(52);
      expect(lines[0]).toBe('line 1: not valid JSON');
      expect(lines[49]).toBe('line 50: not valid JSON');
      expect(lines.slice(50)).toEqual(['... and 3 more bad lines', 'import failed: 53 bad lines; nothing was written']);
    });

    it('reports a line over the length cap as a bad line, and writes nothing', async () => {
      // Issue 20, item 14: 3 MiB in one line, three times the cap (MAX_LINE_CHARS), in a file read
      // in 64 KiB chunks: the line is never held whole.
      const overlong = JSON.stringify({ ...purchaseLine(), code: 'x'.repeat(3 * MAX_LINE_CHARS) });
      const file = writeFile('long-line.ndjson', [accountLine(), overlong, itemLine(), '{']);
      expect(await run(file)).toEqual({
        ok: false,
        stdout: '',
        stderr:
          `line 2: longer than ${MAX_LINE_CHARS} characters, the most a line may hold\n` +
          'line 4: not valid JSON\n' +
          'import failed: 2 bad lines; nothing was written\n',
      });
      expect((await temp.snapshot()).accounts).toEqual([]);
      // A line of exactly the cap is read as any other (here, a good account with a long field).
      const account = JSON.stringify(accountLine());
      const padded = `${account.slice(0, -1)},"description":"${'d'.repeat(MAX_LINE_CHARS)}"}`;
      const atCap = writeFile('at-cap.ndjson', [`${padded.slice(0, MAX_LINE_CHARS - 2)}"}`]);
      expect((await run(atCap)).stderr).toBe(
        'line 1: account: unknown field description\nimport failed: 1 bad line; nothing was written\n',
      );
    });

    it('reads standard input for -', async () => {
      const stdin = Readable.from([`${ndjsonText([accountLine(), itemLine()])}\n`]);
      expect(await run('-', stdin)).toEqual({
        ok: true,
        stdout:
          'accounts: 1 inserted, 0 updated, 0 unchanged\nitems: 1 inserted, 0 updated, 0 unchanged\n' +
          'purchases: 0 inserted, 0 updated, 0 unchanged\n',
        stderr: '',
      });
    });

    it('says so in one line when the file cannot be read', async () => {
      const missing = join(temp.dir, 'missing.ndjson');
      expect(await run(missing)).toEqual({ ok: false, stdout: '', stderr: `cannot read ${missing}: no such file\n` });
      const directory = join(temp.dir, 'a-directory');
      mkdirSync(directory);
      expect(await run(directory)).toEqual({ ok: false, stdout: '', stderr: `cannot read ${directory}: not a file\n` });
    });

    it('shows progress only on a terminal, and leaves the report', async () => {
      const file = writeFile('good.ndjson', [accountLine(), itemLine()]);
      const terminal = capture(true);
      const result = await run(file, undefined, terminal);
      expect(result.ok).toBe(true);
      expect(result.stdout).toContain('accounts: 1 inserted');
      expect(terminal.text()).toContain('importing');
    });
  });
});

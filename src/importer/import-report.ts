import type { ImportResult } from './import-ndjson.js';
import type { LineType } from './parse-line.js';

const PLURALS: Record<LineType, string> = { account: 'accounts', item: 'items', purchase: 'purchases' };

/** What the import command prints: counts (to stdout) on success, bad lines (to stderr) on failure. */
export function importReport(result: ImportResult): { readonly stdout: string[]; readonly stderr: string[] } {
  if (result.ok) {
    const stdout = (Object.keys(PLURALS) as LineType[]).map((type) => {
      const { inserted, updated, unchanged } = result.counts[type];
      return `${PLURALS[type]}: ${inserted} inserted, ${updated} updated, ${unchanged} unchanged`;
    });
    return { stdout, stderr: [] };
  }
  const stderr = result.errors.map((error) => `line ${error.line}: ${error.message}`);
  const more = result.errorCount - result.errors.length;
  if (more > 0) stderr.push(`... and ${more} more bad ${more === 1 ? 'line' : 'lines'}`);
  const total = `${result.errorCount} bad ${result.errorCount === 1 ? 'line' : 'lines'}`;
  stderr.push(`import failed: ${total}; nothing was written`);
  return { stdout: [], stderr };
}

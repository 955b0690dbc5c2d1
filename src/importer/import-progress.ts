import cliProgress from 'cli-progress';
import type { ImportProgress } from './import-ndjson.js';

/** Shows how far an import has read. */
export interface ProgressDisplay {
  update(progress: ImportProgress): void;
  stop(): void;
}

const MIB = 1024 * 1024;

/**
 * A progress bar on `stream` (a terminal): by bytes for an input of known size, else a count of
 * lines. Cleared when stopped, so that only the report stays on screen.
 */
export function createProgressBar(stream: NodeJS.WritableStream, totalBytes: number | undefined): ProgressDisplay {
  const byBytes = totalBytes !== undefined && totalBytes > 0;
  const bar = new cliProgress.SingleBar({
    stream,
    format: byBytes
      ? 'importing [{bar}] {percentage}% | {read} of {size} MiB | {lines} lines | {eta_formatted} left'
      : 'importing: {lines} lines read ({read} MiB)',
    hideCursor: true,
    clearOnComplete: true,
    barsize: 30,
    fps: 5,
  });
  const size = byBytes ? totalBytes : 0;
  bar.start(size, 0, { read: '0.0', size: (size / MIB).toFixed(1), lines: 0 });
  return {
    update({ bytesRead, linesRead }) {
      bar.update(byBytes ? bytesRead : 0, { read: (bytesRead / MIB).toFixed(1), lines: linesRead });
    },
    stop() {
      bar.stop();
    },
  };
}

/** When the output is not a terminal: nothing. */
export const noProgress: ProgressDisplay = { update() {}, stop() {} };

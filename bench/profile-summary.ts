import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Sums a V8 CPU profile (`node --cpu-prof`) by function: self time (samples whose top frame it
 * is) and its share of the profile, the busiest first. For bench/README.md's "where the time goes".
 *
 *   node dist/bench/profile-summary.js FILE.cpuprofile [TOP]
 */

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly hitCount?: number;
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
}

const [file, top = '25'] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary FILE.cpuprofile [TOP]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const microsPerSample = (profile.endTime - profile.startTime) / Math.max(profile.samples.length, 1);

const where = ({ functionName, url, lineNumber }: ProfileNode['callFrame']) => {
  const place = url.replace(/^file:\/\//, '');
  const shortPlace = place.includes('node_modules/')
    ? place.slice(place.lastIndexOf('node_modules/') + 'node_modules/'.length)
    : place.startsWith('/')
      ? relative(process.cwd(), place)
      : place;
  return `${functionName || '(anonymous)'} ${shortPlace ? `${shortPlace}:${lineNumber + 1}` : ''}`.trim();
};

const selfSamples = new Map<string, number>();
let total = 0;
let idle = 0;
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  total += hits;
  if (node.callFrame.functionName === '(idle)') idle += hits;
  const name = where(node.callFrame);
  selfSamples.set(name, (selfSamples.get(name) ?? 0) + hits);
}
const busy = total - idle;
process.stdout.write(
  `${file}: ${total} samples of ${(microsPerSample / 1000).toFixed(2)} ms, busy ${((busy / total) * 100).toFixed(0)} %\n` +
    `| self % of busy | self ms | function |\n|---|---|---|\n`,
);
const rows = [...selfSamples].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1]);
for (const [name, hits] of rows.slice(0, Number(top))) {
  process.stdout.write(
    `| ${((hits / busy) * 100).toFixed(1)} | ${((hits * microsPerSample) / 1000).toFixed(0)} | ${name} |\n`,
  );
}

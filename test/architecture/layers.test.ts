import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../helpers/source-files.js';

/**
 * The house in layers (README, "Layout"): each folder of src/ sits in one layer, and a module may
 * import only from its own layer or those below. No import cycle between modules. Read from the
 * sources' import statements (type-only imports included: a type is a dependency too).
 */

const LAYERS: readonly (readonly string[])[] = [
  // rules: what a marketplace's records mean, and the two language variants
  ['domain', 'variants'],
  // records: one table per record, its columns, its line schema and readers
  ['records'],
  // the store
  ['store'],
  // services: how a worker thread starts, keys, passwords, budgets, import, export, account and
  // purchase actions, the MarketBob source, purchase-code activity, signed webhooks, the background
  // writer, answers' signatures
  [
    'threads',
    'keys',
    'passwords',
    'limits',
    'importer',
    'exporter',
    'operations',
    'marketbob',
    'activity',
    'demo',
    'webhooks',
    'writer',
    'signing',
  ],
  // adapters: the API, its transport and door, the other surfaces, the contract's schemas, the CLI
  ['metrics', 'schemas', 'api', 'server', 'web', 'admin', 'health', 'openapi', 'cli'],
  // composition: the config, the app, the process
  ['.'],
];

/**
 * Files that start a process of their own compose it, as `main.ts` does the server's: the CLI's
 * entry, and the scripts that write the OpenAPI documents and the SDK's contract. They sit in
 * the composition layer, whatever their folder.
 */
const ENTRY_POINTS: ReadonlySet<string> = new Set([
  'cli/main.ts',
  'openapi/write-openapi.ts',
  'schemas/write-sdk-contract.ts',
]);

/** The folder right under src/ a file sits in ('.' for src/ itself and the entry points). */
function folderOf(file: string): string {
  const path = relative(SRC, file);
  const parts = path.split('/');
  return parts.length === 1 || ENTRY_POINTS.has(path) ? '.' : (parts[0] as string);
}

function layerOf(folder: string): number {
  const layer = LAYERS.findIndex((folders) => folders.includes(folder));
  if (layer === -1) throw new Error(`src/${folder} is in no layer: add it to LAYERS and the README`);
  return layer;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

/** Every file's relative imports, resolved to files under src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const spec = (match[1] ?? match[2]) as string;
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (target.startsWith(SRC)) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan): each is an import cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    order.set(file, index);
    low.set(file, index);
    index += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) as number, order.get(next) as number));
      }
    }
    if (low.get(file) === order.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(relative(SRC, member));
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

describe('the house in layers', () => {
  const graph = importGraph();

  it('has every folder of src/ in a layer', () => {
    for (const file of graph.keys()) expect(() => layerOf(folderOf(file))).not.toThrow();
  });

  it('imports nothing from a higher layer', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (layerOf(folderOf(target)) > layerOf(folderOf(file))) {
          upward.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });
});

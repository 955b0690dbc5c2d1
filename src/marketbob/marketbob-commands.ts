import cliProgress from 'cli-progress';
import type { OutputStream } from '../importer/import-command.js';
import type { LineType } from '../importer/parse-line.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import { describeMarketbobUrl, type MarketbobConfig } from './marketbob-config.js';
import { openMarketbob } from './marketbob-connection.js';
import { MarketbobReader } from './marketbob-reader.js';
import { readSettings } from './marketbob-settings.js';
import { type RowReport, type SyncProgress, type SyncResult, syncMarketbob } from './marketbob-sync.js';
import { checkSchema, schemaReportLines, settingsReportLines } from './schema-check.js';

export interface CommandStreams {
  readonly stdout?: OutputStream;
  readonly stderr?: OutputStream;
}

/** An outcome as the CLI's exit codes say (cli-support.ts): 0 done, 1 failed. */
export type CommandOutcome = 'ok' | 'failed';

const print = (stream: OutputStream, lines: readonly string[]) => {
  if (lines.length > 0) stream.write(`${lines.join('\n')}\n`);
};

/** The reason of a failure to reach or read MarketBob: the driver's message, which names no password. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const first = error.message.split('\n', 1)[0] || error.name;
  return typeof code === 'string' && !first.includes(code) ? `${code}: ${first}` : first;
}

/** `marketbob check`: what the bridge will read in MarketBob's database, and what is missing. */
export async function runMarketbobCheck(
  marketbob: MarketbobConfig,
  streams: CommandStreams = {},
  /** The configured variants: a warning for each whose currency is not MarketBob's. */
  variants: readonly { readonly lang: string; readonly currency: string }[] = [],
): Promise<CommandOutcome> {
  const stdout = streams.stdout ?? process.stdout;
  const stderr = streams.stderr ?? process.stderr;
  const db = openMarketbob(marketbob.url, { connections: 1 });
  try {
    const report = await checkSchema(db);
    const lines = schemaReportLines(report);
    if (report.usable) {
      const settings = readSettings(await new MarketbobReader(db, false).settings());
      // Before the verdict, the last line.
      lines.splice(-1, 0, ...settingsReportLines(settings, marketbob.timezone, variants));
    }
    print(stdout, lines);
    return report.usable ? 'ok' : 'failed';
  } catch (error) {
    print(stderr, [`cannot read MarketBob at ${describeMarketbobUrl(marketbob.url)}: ${reasonOf(error)}`]);
    return 'failed';
  } finally {
    await db.destroy();
  }
}

const PLURALS: Record<LineType, string> = { account: 'accounts', item: 'items', purchase: 'purchases' };

/** What `marketbob sync` prints: counts and reports (stdout), or the refused rows (stderr). */
export function syncReport(result: SyncResult): { readonly stdout: string[]; readonly stderr: string[] } {
  const row = (report: RowReport) => `${report.table} ${report.id}: ${report.message}`;
  if (!result.ok) {
    const stderr = result.errors.map(row);
    const more = result.errorCount - result.errors.length;
    if (more > 0) stderr.push(`... and ${more} more`);
    stderr.push(
      `sync failed: the store refused ${result.errorCount} ${result.errorCount === 1 ? 'row' : 'rows'}; nothing was written`,
    );
    return { stdout: [], stderr };
  }
  const stdout = (Object.keys(PLURALS) as LineType[]).map((type) => {
    const { inserted, updated, unchanged } = result.counts[type];
    return `${PLURALS[type]}: ${inserted} inserted, ${updated} updated, ${unchanged} unchanged`;
  });
  stdout.push(`passwords: ${result.passwordsSet} set`);
  for (const report of result.skipped) stdout.push(`skipped ${row(report)}`);
  for (const report of result.notes) stdout.push(`note ${row(report)}`);
  const changed = Object.values(result.counts).some((c) => c.inserted + c.updated > 0) || result.passwordsSet > 0;
  stdout.push(changed ? 'sync done' : 'sync done: nothing changed (the store already held every row)');
  return { stdout, stderr: [] };
}

/** A progress bar by rows read, on a terminal. */
function progressBar(stream: OutputStream): { update(progress: SyncProgress): void; stop(): void } {
  if (!stream.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar({
    stream,
    format: 'syncing [{bar}] {percentage}% | {value} of {total} rows | {eta_formatted} left',
    hideCursor: true,
    clearOnComplete: true,
    barsize: 30,
    fps: 5,
  });
  let started = false;
  return {
    update({ rowsRead, totalRows }) {
      if (!started) {
        bar.start(totalRows, 0);
        started = true;
      }
      bar.update(rowsRead);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/** `marketbob sync`: a full sync into the store, all or nothing. */
export async function runMarketbobSync(
  config: { readonly marketbob: MarketbobConfig; readonly storeCurrency: string },
  store: Store,
  keys: KeyMaterial,
  streams: CommandStreams = {},
): Promise<CommandOutcome> {
  const stdout = streams.stdout ?? process.stdout;
  const stderr = streams.stderr ?? process.stderr;
  const db = openMarketbob(config.marketbob.url, { connections: 1 });
  const bar = progressBar(stderr);
  try {
    const result = await syncMarketbob(db, store, keys, config.marketbob, { onProgress: bar.update });
    bar.stop();
    if (
      result.ok &&
      result.settings.currencyCode !== undefined &&
      result.settings.currencyCode !== config.storeCurrency
    ) {
      print(stderr, [
        `warning: MarketBob's currency is ${result.settings.currencyCode} and storeCurrency is ${config.storeCurrency}: amounts are copied as they are`,
      ]);
    }
    const report = syncReport(result);
    print(stdout, report.stdout);
    print(stderr, report.stderr);
    return result.ok ? 'ok' : 'failed';
  } catch (error) {
    bar.stop();
    print(stderr, [
      `sync failed: ${reasonOf(error)} (MarketBob at ${describeMarketbobUrl(config.marketbob.url)}); nothing was written`,
    ]);
    return 'failed';
  } finally {
    await db.destroy();
  }
}

/**
 * `marketbob unlink [username]`: forgets which MarketBob user every account (or the one named)
 * is, so that this service generates their keys again (a marketplace that leaves MarketBob). The
 * accounts, their keys and passwords stay as they are; unlinking every account also lifts
 * MarketBob's API switch (a `marketbob` variant stops answering 404 for it). Refused while the bridge is configured
 * (its next sync would link them again) unless `force`.
 */
export async function runMarketbobUnlink(
  options: { readonly username?: string; readonly force: boolean; readonly configured: boolean },
  store: Store,
  streams: CommandStreams = {},
): Promise<CommandOutcome> {
  const stdout = streams.stdout ?? process.stdout;
  const stderr = streams.stderr ?? process.stderr;
  if (options.configured && !options.force) {
    print(stderr, [
      'refused: the bridge is configured (MARKETBOB_DATABASE_URL or marketbob.url), and its next sync or poll links the accounts again; unset it first, or pass --force',
    ]);
    return 'failed';
  }
  const unlinked = await store.runImport(async (session) => {
    const linked = (await session.marketbobUsers()).map((link) => link.username);
    const names = options.username === undefined ? linked : linked.filter((name) => name === options.username);
    await session.unlinkMarketbobUsers(names);
    return names.sort();
  });
  if (options.username !== undefined && unlinked.length === 0) {
    print(stderr, [`account ${JSON.stringify(options.username)} is not linked to MarketBob: nothing done`]);
    return 'failed';
  }
  // Left by MarketBob altogether: its API switch no longer holds our answers back.
  if (options.username === undefined) await store.setSourceSetting('api_enabled', '1');
  const lines = unlinked.map((name) => `unlinked ${name}`);
  lines.push(
    unlinked.length === 0
      ? 'no account is linked to MarketBob: nothing done'
      : `unlinked ${unlinked.length} ${unlinked.length === 1 ? 'account' : 'accounts'} from MarketBob: their keys can be generated here again`,
  );
  print(stdout, lines);
  return 'ok';
}

import type { MarketbobConfig } from '../marketbob/marketbob-config.js';
import type { LicensesConfig } from '../signing/licenses-config.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import type { VariantConfig } from '../variants/variant-config.js';
import type { WebhooksSettings } from '../webhooks/webhooks-config.js';

/** What the commands read of the configuration (the server's: DATABASE_URL, SECRET_KEY, MARKETPLACE_CONFIG). */
export interface CliConfig {
  readonly store: StoreLocation;
  readonly storeIsDefault: boolean;
  readonly storeCurrency: string;
  readonly secretKey: string | undefined;
  readonly keyRotationGraceSeconds: number;
  readonly marketbob: MarketbobConfig | undefined;
  readonly variants: readonly VariantConfig[];
  readonly webhooks: WebhooksSettings;
  /** How long a replaced signing key stays published (`signing-keys`). */
  readonly licenses: LicensesConfig;
}

/** Runs `work` over the configured store, opened for it and always closed. */
export type WithStore = <T>(work: (store: Store, config: CliConfig) => Promise<T>) => Promise<T>;

/**
 * The CLI's exit codes (also in `--help` and docs/operations.md): 0 done; 1 the command ran and
 * failed (bad lines in an import, no such account or purchase, the store failed); 2 it was not
 * understood (an unknown command or option, a missing argument) or the configuration is bad.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export const EXIT_CODES_HELP = `
Exit codes:
  0  done
  1  the command failed (bad lines in an import, no such account or purchase, the store failed)
  2  usage error (unknown command or option, missing argument) or a bad configuration`;

/** Opens the store of the config `load` reads, for one command at a time. */
export function storeRunner(load: () => CliConfig): WithStore {
  return async (work) => {
    const config = load();
    const store = await openStore(config.store, { createDirectory: config.storeIsDefault });
    try {
      return await work(store, config);
    } finally {
      await store.close();
    }
  };
}

/** Prints a message to stderr and exits with the given code. */
export function fail(message: string, code: number = EXIT.failed): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** Help text listing examples, shown after a command's own help. */
export function examples(...lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

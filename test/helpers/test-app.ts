import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, type ConfigFile, loadConfig } from '../../src/config.js';
import { type ImportOptions, importNdjson } from '../../src/importer/import-ndjson.js';
import { loadKeyMaterial } from '../../src/keys/key-material.js';
import type { KeyMaterial } from '../../src/keys/server-secret.js';
import { createLogger } from '../../src/logging.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { type ContractChecker, createContractChecker } from './response-contract.js';
import { createTestDatabase, type StoreKind } from './test-database.js';

export { type StoreKind, TEST_STORES } from './test-database.js';

export interface TestApp {
  readonly kind: StoreKind;
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly config: Config;
  /** The environment that names this app's store and config, for a CLI or server process over the same store. */
  readonly env: Readonly<Record<string, string>>;
  /** A temp directory for the test's files. */
  readonly dir: string;
  /** Every line the app logged (at the level asked for). */
  readonly logs: string[];
  /** Imports NDJSON lines through the real importer; throws with the reported errors when rejected. */
  importLines(lines: readonly (string | object)[], options?: ImportOptions): Promise<void>;
  /** Checks every answer `app.inject` returns against the contract's schema for its route and status. */
  readonly contract: ContractChecker;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** The config file's contents; the shipped defaults when left out. */
  readonly configFile?: ConfigFile;
  readonly logLevel?: string;
  readonly lines?: readonly (string | object)[];
  /** More environment for loadConfig, such as REDIS_URL. */
  readonly env?: Readonly<Record<string, string>>;
  /** Rewrites the environment the app's config is read from (a store URL through a proxy, say). */
  readonly rewriteEnv?: (env: Readonly<Record<string, string>>) => Record<string, string>;
  /** What the app is given instead of the store (a wrapper over it); `store` stays the real one. */
  readonly wrapStore?: (store: Store) => Store;
}

/**
 * Builds the real app over a fresh store of the given kind (an SQLite file in a temp directory,
 * or a new PostgreSQL database), with a captured log. `close()` drops the store.
 */
export async function createTestApp(kind: StoreKind, options?: TestAppOptions): Promise<TestApp>;
/** The same over SQLite. */
export async function createTestApp(options?: TestAppOptions): Promise<TestApp>;
export async function createTestApp(
  kindOrOptions: StoreKind | TestAppOptions = 'sqlite',
  maybeOptions: TestAppOptions = {},
): Promise<TestApp> {
  const [kind, options] =
    typeof kindOrOptions === 'string' ? [kindOrOptions, maybeOptions] : ['sqlite' as const, kindOrOptions];
  const database = await createTestDatabase(kind);
  const dir = database.dir;
  const given: Record<string, string> = { ...database.env, ...options.env };
  const env: Record<string, string> = options.rewriteEnv ? options.rewriteEnv(given) : given;
  if (options.configFile) {
    env.MARKETPLACE_CONFIG = join(dir, 'config.json');
    writeFileSync(env.MARKETPLACE_CONFIG, JSON.stringify(options.configFile));
  }
  const config = loadConfig(env);
  const store = await openStore(config.store);
  const keys = loadKeyMaterial(config);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = createLogger(options.logLevel ?? 'trace', sink);
  const app = await buildApp({ config, store: options.wrapStore?.(store) ?? store, keys, logger });
  const contract = checkEveryAnswer(app, config);
  const importLines = async (lines: readonly (string | object)[], importOptions?: ImportOptions) => {
    const text = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
    const result = await importNdjson(store, keys, Readable.from([text]), importOptions);
    if (!result.ok) throw new Error(result.errors.map((e) => `line ${e.line}: ${e.message}`).join('\n'));
  };
  if (options.lines) await importLines(options.lines);
  return {
    kind,
    app,
    store,
    keys,
    config,
    env,
    dir,
    logs,
    importLines,
    contract,
    async close() {
      await closeTelling(app);
      await store.close();
      await database.drop();
    },
  };
}

/** How long a close may take before what it still waits for is written to standard error. */
const SLOW_CLOSE_MS = 30_000;

/**
 * Closes the app; a close still running after SLOW_CLOSE_MS says on standard error whether the
 * server still holds connections or the app's own close hooks are what it waits for, every
 * SLOW_CLOSE_MS until it ends (a hook timing out says nothing of why).
 */
async function closeTelling(app: FastifyInstance): Promise<void> {
  let serverClosed = !app.server.listening;
  app.server.once('close', () => {
    serverClosed = true;
  });
  const started = Date.now();
  const tell = setInterval(() => {
    app.server.getConnections((_error, count) => {
      const waiting = serverClosed ? 'its close hooks' : `the server, ${count} connection(s) open`;
      process.stderr.write(`test app still closing after ${Date.now() - started} ms: waiting for ${waiting}\n`);
    });
  }, SLOW_CLOSE_MS);
  try {
    await app.close();
  } finally {
    clearInterval(tell);
  }
}

/**
 * Wraps the app's `inject` (which enters the server's own handler, the door production takes: see
 * buildApp) so every answer a test receives is checked against the contract's schemas
 * (src/schemas) before the test sees it: a mismatch fails the test that made the request.
 */
function checkEveryAnswer(app: FastifyInstance, config: Config): ContractChecker {
  const contract = createContractChecker(config);
  const inject = app.inject.bind(app) as (options: InjectOptions | string) => Promise<LightMyRequestResponse>;
  const checked = async (options: InjectOptions | string) => {
    const response = await inject(options);
    contract.check(options, response);
    return response;
  };
  (app as { inject: unknown }).inject = (options?: InjectOptions | string) => {
    if (options === undefined) throw new Error('createTestApp: call inject with options, so its answer is checked');
    return checked(options);
  };
  return contract;
}

/** The two shipped variants, as a client sees them (SPEC 1 and 2.3). */
export const VARIANTS = [
  {
    lang: 'en',
    base: '',
    ok: 'success',
    error: 'error',
    currency: 'USD',
    rate: '1',
    messages: {
      invalidRequest: 'Invalid request',
      noItems: 'No items found',
      itemNotFound: 'Item Not Found',
      invalidPurchaseCode: 'Invalid purchase code',
      notFound: 'Not found',
      methodNotAllowed: 'Method not allowed',
      bodyTooLarge: 'Request body too large',
      unsupportedContentType: 'Unsupported content type',
      tooManyRequests: 'Too many requests',
      serviceUnavailable: 'Service unavailable',
      internal: 'Internal error',
    },
  },
  {
    lang: 'pt',
    base: '/pt',
    ok: 'Sucesso',
    error: 'Erro',
    currency: 'BRL',
    rate: '5.00',
    messages: {
      invalidRequest: 'Solicitação Inválida',
      noItems: 'Nenhum Item Cncontrado',
      itemNotFound: 'Item Não Encontrado',
      invalidPurchaseCode: 'Código de Compra Inválido',
      notFound: 'Não encontrado',
      methodNotAllowed: 'Método não permitido',
      bodyTooLarge: 'Corpo da solicitação muito grande',
      unsupportedContentType: 'Tipo de conteúdo não suportado',
      tooManyRequests: 'Muitas solicitações',
      serviceUnavailable: 'Serviço indisponível',
      internal: 'Erro interno',
    },
  },
] as const;

export type TestVariant = (typeof VARIANTS)[number];

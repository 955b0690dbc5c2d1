import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { exportNdjson } from '../exporter/export-ndjson.js';
import type { ImportCounts } from '../importer/import-ndjson.js';
import { importReport } from '../importer/import-report.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { KeyManagedByMarketbobError, rotateAccountKey } from '../operations/account-keys.js';
import { type AccountAction, applyAccountAction } from '../operations/account-operations.js';
import {
  ACTIVATION_LIMIT_RULE,
  activationLimitFromJson,
  setItemActivationLimit,
} from '../operations/activation-operations.js';
import { applyPurchaseAction, type PurchaseAction } from '../operations/purchase-operations.js';
import { classifyError, reportFailure } from '../server/error-classifier.js';
import { exemptFromRequestTimeout } from '../server/request-timeout-exemption.js';
import { pathOf } from '../server/url-path.js';
import { readSnapshot } from '../store/snapshot.js';
import type { Store } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import type { WebhookServiceDeps } from '../webhooks/webhook-endpoints.js';
import { sendAdminError, sendAdminJson } from './admin-errors.js';
import { createAdminTokenCheck } from './admin-token.js';
import { apiKeyRoutes } from './api-key-routes.js';
import { ImportTooLargeError, runImportInWorker } from './run-import-in-worker.js';
import { webhookRoutes } from './webhook-routes.js';

/** Where the admin API lives. */
export const ADMIN_PREFIX = '/admin/v1';

/** An import's own body limit: the storefront's whole catalogue in one request, not the API's 64 KiB. */
export const ADMIN_IMPORT_LIMIT_BYTES = 1024 ** 3;

export interface AdminPluginOptions {
  readonly config: {
    readonly adminToken: string | undefined;
    readonly keyRotationGraceSeconds: number;
    readonly store: StoreLocation;
  };
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly metrics: ServiceMetrics;
  /** The Prometheus text of every process serving (summed over `WORKERS`). */
  readonly metricsText: () => Promise<string>;
  /** Sellers' webhook endpoints (src/webhooks). */
  readonly webhooks: WebhookServiceDeps;
}

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** Counts per type, under the names the CLI prints them with. */
function countsBody(counts: ImportCounts) {
  return { accounts: counts.account, items: counts.item, purchases: counts.purchase };
}

/**
 * The admin API (`/admin/v1/...`) for the storefront and operators: imports, purchase and account
 * changes, key rotation, export, metrics. Every request needs `Authorization: Bearer $ADMIN_TOKEN`;
 * with no ADMIN_TOKEN configured the whole prefix answers 404. Answers and errors are JSON of its
 * own (`{code, message}`), not the seller API's envelope. Writes go through the store, whose change
 * signal clears the caches of this and every other instance.
 */
export async function adminPlugin(scope: FastifyInstance, options: AdminPluginOptions): Promise<void> {
  const { config, store, keys, metrics } = options;
  const token = config.adminToken;
  if (token === undefined) {
    scope.route({ method: METHODS, url: '/*', handler: (_request, reply) => sendAdminError(reply, 'not_found') });
    scope.route({ method: METHODS, url: '/', handler: (_request, reply) => sendAdminError(reply, 'not_found') });
    return;
  }
  const tokenIsValid = createAdminTokenCheck(token);

  scope.addHook('onRequest', (request, reply, done) => {
    if (!tokenIsValid(request.headers.authorization)) {
      sendAdminError(reply.header('www-authenticate', 'Bearer'), 'unauthorized');
      return;
    }
    done();
  });

  scope.setErrorHandler((error, request, reply) => {
    const failure = classifyError(error);
    reportFailure(failure, { surface: 'admin', reqId: request.id, log: request.log, metrics });
    switch (failure.kind) {
      case 'serviceUnavailable':
        return sendAdminError(reply, 'service_unavailable');
      case 'internal':
        return sendAdminError(reply, 'internal');
      case 'bodyTooLarge':
        return sendAdminError(reply, 'body_too_large');
      default:
        return sendAdminError(reply, 'malformed_request');
    }
  });

  for (const action of ['refund', 'cancel', 'downloaded'] as const satisfies readonly PurchaseAction[]) {
    scope.post<{ Params: { code: string } }>(`/purchases/:code/${action}`, async (request, reply) => {
      const result = await applyPurchaseAction(store, request.params.code, action);
      if (!result.ok) return sendAdminError(reply, result.problem);
      request.log.info({ reqId: request.id, action }, 'admin: purchase changed');
      return sendAdminJson(reply, 200, result.purchase);
    });
  }

  for (const action of ['suspend', 'reactivate'] as const satisfies readonly AccountAction[]) {
    scope.post<{ Params: { username: string } }>(`/accounts/:username/${action}`, async (request, reply) => {
      const account = await applyAccountAction(store, request.params.username, action);
      if (!account) return sendAdminError(reply, 'account_not_found');
      request.log.info({ reqId: request.id, action }, 'admin: account changed');
      return sendAdminJson(reply, 200, account);
    });
  }

  scope.post<{ Params: { username: string } }>('/accounts/:username/api-key', async (request, reply) => {
    const username = request.params.username;
    // `?now=true`: a leaked key ends at once, whatever keyRotationGraceSeconds says (`keys rotate --now`).
    const now = flagOption(request.query, 'now');
    if (now === undefined) return sendAdminError(reply, 'malformed_request', 'now must be true or false');
    const rotated = await rotateAccountKey(store, keys, username, now ? 0 : config.keyRotationGraceSeconds).catch(
      (error: unknown) => {
        if (error instanceof KeyManagedByMarketbobError) return 'managed' as const;
        throw error;
      },
    );
    if (rotated === 'managed') return sendAdminError(reply, 'key_managed_by_marketbob');
    if (rotated === undefined) return sendAdminError(reply, 'account_not_found');
    request.log.info({ reqId: request.id, action: 'rotate key' }, 'admin: account changed');
    return sendAdminJson(reply, 200, {
      username,
      api_key: rotated.key,
      old_key_works_until: rotated.oldKeyWorksUntil?.toISOString() ?? null,
    });
  });

  // An item's activation limit: `{"activation_limit": N}`, or null for none.
  scope.put<{ Params: { id: string }; Body: unknown }>('/items/:id/activation-limit', async (request, reply) => {
    const id = /^\d{1,15}$/.test(request.params.id) ? Number(request.params.id) : 0;
    if (id < 1) return sendAdminError(reply, 'item_not_found');
    const given = request.body as { activation_limit?: unknown } | null | undefined;
    const limit =
      given !== null && typeof given === 'object' && 'activation_limit' in given
        ? activationLimitFromJson(given.activation_limit)
        : undefined;
    if (limit === undefined) {
      return sendAdminError(reply, 'malformed_request', `activation_limit must be ${ACTIVATION_LIMIT_RULE} (null)`);
    }
    if (!(await setItemActivationLimit(store, id, limit))) return sendAdminError(reply, 'item_not_found');
    request.log.info({ reqId: request.id, action: 'set activation limit' }, 'admin: item changed');
    return sendAdminJson(reply, 200, { item_id: id, activation_limit: limit });
  });

  await scope.register(async (importScope) => {
    // The body is streamed to the importer as it arrives, whatever its declared type (NDJSON, usually).
    importScope.removeAllContentTypeParsers();
    importScope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    importScope.post('/import', { bodyLimit: ADMIN_IMPORT_LIMIT_BYTES }, (request, reply) => runImport(request, reply));
  });

  async function runImport(request: FastifyRequest, reply: FastifyReply) {
    // A gigabyte from the storefront may take longer to arrive than any API request may.
    exemptFromRequestTimeout(request.raw);
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > ADMIN_IMPORT_LIMIT_BYTES)
      return sendAdminError(reply.header('connection', 'close'), 'body_too_large');
    // `?replace_keys=true`: lines may give an account another key than its current one (`import --replace-keys`).
    const replaceKeys = flagOption(request.query, 'replace_keys');
    if (replaceKeys === undefined) {
      return sendAdminError(
        reply.header('connection', 'close'),
        'malformed_request',
        'replace_keys must be true or false',
      );
    }
    const input = (request.body ?? request.raw) as AsyncIterable<Uint8Array>;
    try {
      const result = await runImportInWorker({
        location: config.store,
        store,
        keys,
        input,
        limitBytes: ADMIN_IMPORT_LIMIT_BYTES,
        replaceKeys,
      });
      if (result.ok) {
        metrics.importRun('ok');
        request.log.info({ reqId: request.id, counts: countsBody(result.counts) }, 'admin: import written');
        return sendAdminJson(reply, 200, countsBody(result.counts));
      }
      metrics.importRun('rejected');
      const lines = importReport(result).stderr;
      return sendAdminError(reply, 'import_rejected', lines.at(-1), {
        errors: result.errors.map((error) => `line ${error.line}: ${error.message}`),
        error_count: result.errorCount,
      });
    } catch (error) {
      metrics.importRun('failed');
      if (error instanceof ImportTooLargeError) {
        return sendAdminError(reply.header('connection', 'close'), 'body_too_large');
      }
      request.log.error({ reqId: request.id, err: error }, 'admin: import failed');
      return sendAdminError(reply, 'import_failed');
    }
  }

  scope.get('/export', (request, reply) => {
    const out = new PassThrough({ highWaterMark: 1 << 20 });
    readSnapshot(config.store, (snapshot) => exportNdjson(snapshot, keys, out)).then(
      (counts) => {
        request.log.info({ reqId: request.id, counts }, 'admin: export written');
        out.end();
      },
      (error: unknown) => {
        // Headers are gone: the only way left to say so is to break the chunked answer off.
        request.log.error({ reqId: request.id, err: error }, 'admin: export failed');
        out.destroy(error instanceof Error ? error : new Error(String(error)));
      },
    );
    return reply
      .code(200)
      .header('content-type', 'application/x-ndjson; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(out);
  });

  webhookRoutes(scope, options.webhooks);
  apiKeyRoutes(scope, store, keys);

  scope.get('/metrics', async (_request, reply) => {
    const text = await options.metricsText();
    return reply
      .code(200)
      .header('content-type', metrics.registry.contentType)
      .header('cache-control', 'no-store')
      .send(text);
  });

  // Anything else under the prefix: 405 where the path exists with another method, else 404.
  scope.route({
    method: METHODS,
    url: '/*',
    handler: (request, reply) => {
      const path = pathOf(request.url).slice(ADMIN_PREFIX.length).replace(/\/$/, '');
      const known = ADMIN_PATHS.find(({ pattern }) => pattern.test(path));
      if (!known) return sendAdminError(reply, 'not_found');
      return sendAdminError(reply.header('allow', known.allow), 'method_not_allowed');
    },
  });
}

/**
 * A yes/no option of the query string (`?now=true`): false when absent, undefined when it is
 * anything but `true` or `false` (or given twice), which the caller answers as a malformed request.
 */
function flagOption(query: unknown, name: string): boolean | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined || value === 'false') return false;
  return value === 'true' ? true : undefined;
}

/** The admin paths and their methods, for the 405's `Allow`. */
const ADMIN_PATHS = [
  { pattern: /^\/import$/, allow: 'POST' },
  { pattern: /^\/(export|metrics)$/, allow: 'GET, HEAD' },
  { pattern: /^\/purchases\/[^/]+\/(refund|cancel|downloaded)$/, allow: 'POST' },
  { pattern: /^\/items\/[^/]+\/activation-limit$/, allow: 'PUT' },
  { pattern: /^\/accounts\/[^/]+\/(suspend|reactivate|api-key)$/, allow: 'POST' },
  { pattern: /^\/accounts\/[^/]+\/api-keys$/, allow: 'GET, HEAD, POST' },
  { pattern: /^\/accounts\/[^/]+\/api-keys\/[^/]+$/, allow: 'DELETE' },
  { pattern: /^\/accounts\/[^/]+\/webhooks$/, allow: 'GET, HEAD, POST' },
  { pattern: /^\/accounts\/[^/]+\/webhooks\/[^/]+$/, allow: 'DELETE' },
  { pattern: /^\/accounts\/[^/]+\/webhooks\/[^/]+\/deliveries$/, allow: 'GET, HEAD' },
  {
    pattern: /^\/accounts\/[^/]+\/webhooks\/[^/]+\/(replay|test|secret|enable|disable|deliveries\/[^/]+\/retry)$/,
    allow: 'POST',
  },
] as const;

import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ImportCounts } from '../../importer/import-ndjson.js';
import { importReport } from '../../importer/import-report.js';
import { exemptFromRequestTimeout } from '../../server/request-timeout-exemption.js';
import type { RouteOf } from '../../web/request-parts.js';
import { sendAdminError, sendAdminJson } from '../admin-errors.js';
import type { AdminPluginOptions } from '../admin-options.js';
import type { AdminRoute } from '../admin-route.js';
import { ImportTooLargeError, runImportInWorker } from '../run-import-in-worker.js';
import { QueryFlag } from './admin-params.js';

/** An import's own body limit: the storefront's whole catalogue in one request, not the API's 64 KiB. */
export const ADMIN_IMPORT_LIMIT_BYTES = 1024 ** 3;

/** `?replace_keys=true`: lines may give an account another key than its current one (`import --replace-keys`). */
const ImportQuery = Type.Object({ replace_keys: QueryFlag });
const ImportSchemas = { querystring: ImportQuery };

/** The body as it arrives (the scope's parser hands the stream on), or none. */
interface ImportRoute extends RouteOf<typeof ImportSchemas> {
  Body: Readable | undefined;
}

/** Counts per type, under the names the CLI prints them with. */
function countsBody(counts: ImportCounts) {
  return { accounts: counts.account, items: counts.item, purchases: counts.purchase };
}

/**
 * `POST /import`: NDJSON lines into the store in one transaction, on a worker thread, the body
 * streamed to it as it arrives (whatever its declared type); nothing is written when a line is bad.
 */
export const importRoute: AdminRoute = async (scope, deps) => {
  await scope.register(async (importScope) => {
    importScope.removeAllContentTypeParsers();
    importScope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    importScope.post<ImportRoute>(
      '/import',
      { bodyLimit: ADMIN_IMPORT_LIMIT_BYTES, schema: ImportSchemas },
      (request, reply) => runImport(request, reply, deps),
    );
  });
};

async function runImport(request: FastifyRequest<ImportRoute>, reply: FastifyReply, deps: AdminPluginOptions) {
  const { config, store, keys, metrics } = deps;
  // A gigabyte from the storefront may take longer to arrive than any API request may.
  exemptFromRequestTimeout(request.raw);
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > ADMIN_IMPORT_LIMIT_BYTES) return sendAdminError(reply.header('connection', 'close'), 'body_too_large');
  const replaceKeys = request.query.replace_keys;
  if (replaceKeys === undefined) {
    return sendAdminError(
      reply.header('connection', 'close'),
      'malformed_request',
      'replace_keys must be true or false',
    );
  }
  const input: AsyncIterable<Uint8Array> = request.body ?? request.raw;
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

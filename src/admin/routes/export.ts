import { PassThrough } from 'node:stream';
import { exportNdjson } from '../../exporter/export-ndjson.js';
import { readSnapshot } from '../../store/snapshot.js';
import { adminRoute } from '../admin-route.js';

/** `GET /export`: the whole store as import NDJSON, streamed from a snapshot as it is read. */
export const exportRoute = adminRoute({
  method: 'GET',
  url: '/export',
  handler: (request, reply, { config, keys }) => {
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
  },
});

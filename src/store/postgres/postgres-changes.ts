import pg from 'pg';
import { type ChangeRow, changesFrom, READ_LIMIT, READ_SQL, StoreChanges } from '../changes/change-log.js';

/** What changed in the store, as the change log says, read when a NOTIFY says it grew. */
export interface ChangeListener {
  /**
   * What changed since the previous call; undefined for nothing. Everything on every call while
   * the listening connection is down (changes then go unheard).
   */
  changes(): StoreChanges | undefined;
  /** Reads the log now (after this process's own write): the next `changes` names what it logged. */
  catchUp(): Promise<void>;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** How often the connection is checked with a query, so a silently dead one is noticed. */
  readonly heartbeatMs?: number;
  /** Reconnection delays: from the first, doubling up to the last. */
  readonly retryFirstMs?: number;
  readonly retryMaxMs?: number;
}

const READ = READ_SQL('$1', '$2');

/**
 * Listens on `channel` over one connection of its own (never a pooled one: LISTEN belongs to a
 * session). A notification (the log's triggers send one per transaction that adds entries) makes
 * it read the entries after the last one it read, on that same connection, and keep what they
 * name for `changes`. Transactions that change nothing the caches hold send nothing.
 *
 * When the connection drops (or stops answering the heartbeat), the listener is blind: it says
 * "everything changed" on every call, so caches never serve what may be stale, and reconnects with
 * backoff. Once listening again it says so once more, for what happened while it was reconnecting,
 * and reads on from the log's newest entry.
 *
 * Resolves once the first connection listens; rejects when that first connection fails.
 */
export async function listenForChanges(
  config: pg.ClientConfig,
  channel: string,
  options: ListenOptions = {},
): Promise<ChangeListener> {
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const retryFirstMs = options.retryFirstMs ?? 100;
  const retryMaxMs = options.retryMaxMs ?? 5_000;

  let client: pg.Client | undefined;
  let listening = false;
  let pending: StoreChanges | undefined;
  let last = 0;
  let closed = false;
  let retryMs = retryFirstMs;
  let retryTimer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  /** One read at a time; a read asked for while one runs is queued once (it reads whatever came meanwhile). */
  let running: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;

  const heard = (changes: StoreChanges) => {
    if (pending === undefined) pending = changes;
    else pending.merge(changes);
  };

  const lost = (which: pg.Client) => {
    if (which !== client) return;
    client = undefined;
    listening = false;
    clearInterval(heartbeat);
    which.end().catch(() => {});
    if (!closed) scheduleReconnect();
  };

  const scheduleReconnect = () => {
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect().then(
        () => {
          retryMs = retryFirstMs;
        },
        () => {
          retryMs = Math.min(retryMs * 2, retryMaxMs);
          if (!closed) scheduleReconnect();
        },
      );
    }, retryMs);
    retryTimer.unref();
  };

  const newest = async (on: pg.Client) =>
    Number((await on.query<{ seq: number | null }>('SELECT max(seq) AS seq FROM change_log')).rows[0]?.seq ?? 0);

  const readLog = async () => {
    const on = client;
    if (on === undefined || !listening) return;
    try {
      const { rows } = await on.query<ChangeRow>({
        name: 'change_log_read',
        text: READ,
        values: [last, READ_LIMIT + 2],
      });
      let latest = last;
      if (rows[0]?.seq !== last || rows.length > READ_LIMIT + 1) latest = await newest(on);
      const read = changesFrom(
        rows.map((row) => ({ ...row, seq: Number(row.seq) })),
        last,
        () => latest,
      );
      if (on !== client) return;
      last = read.last;
      if (read.changes) heard(read.changes);
    } catch {
      // Not read: assume everything changed rather than serve what may be stale; the next read
      // starts from the same place.
      heard(StoreChanges.everything());
    }
  };

  const catchUp = (): Promise<void> => {
    if (queued === undefined) {
      queued = running.then(() => {
        queued = undefined;
        return readLog();
      });
      running = queued;
    }
    return queued;
  };

  const connect = async () => {
    // A query that gets no answer in time means the connection is no longer to be trusted.
    const next = new pg.Client({ ...config, query_timeout: Math.max(heartbeatMs, 1_000) });
    next.on('notification', (message) => {
      if (message.channel === channel) void catchUp();
    });
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    let start: number;
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      start = await newest(next);
    } catch (error) {
      next.removeAllListeners('end');
      next.on('error', () => {});
      await next.end().catch(() => {});
      throw error;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    last = start;
    // Whatever happened before this connection listened went unheard.
    heard(StoreChanges.everything());
    listening = true;
    heartbeat = setInterval(() => {
      next.query('SELECT 1').catch(() => lost(next));
    }, heartbeatMs);
    heartbeat.unref();
  };

  await connect();

  return {
    changes() {
      if (!listening) return StoreChanges.everything();
      const answer = pending;
      pending = undefined;
      return answer;
    },
    catchUp,
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      clearInterval(heartbeat);
      await running.catch(() => {});
      const lastClient = client;
      client = undefined;
      listening = false;
      if (lastClient) await lastClient.end().catch(() => {});
    },
  };
}

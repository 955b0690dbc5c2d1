import pg from 'pg';

/** Whether the store may have changed, as heard on a LISTEN connection. */
export interface ChangeListener {
  /**
   * True when a change was announced since the previous call, and on every call while the
   * listening connection is down (changes then go unheard, so everything may have changed).
   */
  changedSinceLastCheck(): boolean;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** How often the connection is checked with a query, so a silently dead one is noticed. */
  readonly heartbeatMs?: number;
  /** Reconnection delays: from the first, doubling up to the last. */
  readonly retryFirstMs?: number;
  readonly retryMaxMs?: number;
}

/**
 * Listens on `channel` over one connection of its own (never a pooled one: LISTEN belongs to a
 * session). A notification sets a flag that `changedSinceLastCheck` returns and clears.
 *
 * When the connection drops (or stops answering the heartbeat), the listener is blind: it says
 * "changed" on every call, so caches never serve what may be stale, and reconnects with backoff.
 * Once listening again it says "changed" once more, for what happened while it was reconnecting.
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
  let changed = false;
  let closed = false;
  let retryMs = retryFirstMs;
  let retryTimer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

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

  const connect = async () => {
    // A query that gets no answer in time means the connection is no longer to be trusted.
    const next = new pg.Client({ ...config, query_timeout: Math.max(heartbeatMs, 1_000) });
    next.on('notification', (message) => {
      if (message.channel === channel) changed = true;
    });
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
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
    // Whatever happened before this connection listened went unheard.
    changed = true;
    listening = true;
    heartbeat = setInterval(() => {
      next.query('SELECT 1').catch(() => lost(next));
    }, heartbeatMs);
    heartbeat.unref();
  };

  await connect();

  return {
    changedSinceLastCheck() {
      if (!listening) return true;
      const answer = changed;
      changed = false;
      return answer;
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      clearInterval(heartbeat);
      const last = client;
      client = undefined;
      listening = false;
      if (last) await last.end().catch(() => {});
    },
  };
}

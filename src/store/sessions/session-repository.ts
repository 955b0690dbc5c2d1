import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { SessionQueries } from '../store.js';
import type { StoreContext } from '../store-context.js';
import type { SessionRow } from './session-rows.js';

/** Workspace login sessions. */
export class SessionRepository implements SessionQueries {
  private readonly db: Kysely<Database>;

  constructor(private readonly context: StoreContext) {
    this.db = context.db;
  }

  createSession(session: SessionRow): Promise<void> {
    return this.write(async () => {
      await this.db.insertInto('workspace_sessions').values(session).execute();
    }, false);
  }

  session(idHash: string): Promise<SessionRow | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('workspace_sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return row && { ...row, created_at: Number(row.created_at), last_seen_at: Number(row.last_seen_at) };
    });
  }

  touchSession(idHash: string, lastSeenAt: number): Promise<void> {
    return this.write(async () => {
      await this.db
        .updateTable('workspace_sessions')
        .set({ last_seen_at: lastSeenAt })
        .where('id_hash', '=', idHash)
        .execute();
    }, false);
  }

  setSessionFlash(idHash: string, flash: string | null): Promise<void> {
    return this.write(async () => {
      await this.db.updateTable('workspace_sessions').set({ flash }).where('id_hash', '=', idHash).execute();
    }, false);
  }

  deleteSession(idHash: string): Promise<void> {
    return this.write(async () => {
      await this.db.deleteFrom('workspace_sessions').where('id_hash', '=', idHash).execute();
    }, false);
  }

  deleteSessionsIdleSince(cutoff: number): Promise<void> {
    return this.write(async () => {
      await this.db.deleteFrom('workspace_sessions').where('last_seen_at', '<', cutoff).execute();
    }, false);
  }

  private write<T>(work: () => Promise<T>, changesAccounts = true): Promise<T> {
    return this.context.write(work, changesAccounts);
  }

  private guard<T>(query: () => Promise<T>): Promise<T> {
    return this.context.guard(query);
  }
}

import type { ServerResponse } from 'node:http';

/** The most answers held back before they are written: bounds the wait an answer can add to its request. */
export const ANSWERS_HELD_AT_MOST = 16;

/**
 * The API's answers, each complete (status, headers, body), written together: at the end of the
 * event loop's turn that made them (setImmediate runs after every request read in that turn), or
 * as soon as ANSWERS_HELD_AT_MOST wait.
 *
 * Each answer written to a socket whose reader is asleep wakes that reader, and on one machine (a
 * proxy or a load generator on the same host) that wake cost more than the answer's own work:
 * about 14 % of the API thread's time under load went to it. Written one after another, the first
 * answer wakes the reader and the next ones find it awake. An answer waits at most for the rest of
 * its turn, or for ANSWERS_HELD_AT_MOST - 1 others to be made, never for a timer.
 */
export class AnswerWrites {
  /** Responses and their bodies, two slots each (undefined: a HEAD answer, no body). */
  private readonly held: (ServerResponse | Buffer | undefined)[] = [];
  private scheduled = false;
  private readonly flushTurn = () => {
    this.scheduled = false;
    this.flush();
  };

  /** Writes `res` (its head already set by writeHead) with `body` with the others of its turn. */
  end(res: ServerResponse, body: Buffer | undefined): void {
    const { held } = this;
    held.push(res, body);
    if (held.length >= 2 * ANSWERS_HELD_AT_MOST) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushTurn);
    }
  }

  /**
   * Writes every answer held now. Also called before a connection is closed for bytes that are no
   * request (see server-options.ts): an answer held for a request before them would be lost.
   */
  readonly flush = (): void => {
    const { held } = this;
    for (let at = 0; at < held.length; at += 2) {
      const res = held[at] as ServerResponse;
      // A client gone meanwhile has nobody left to answer.
      if (res.destroyed) continue;
      const body = held[at + 1] as Buffer | undefined;
      if (body === undefined) res.end();
      else res.end(body);
    }
    held.length = 0;
  };
}

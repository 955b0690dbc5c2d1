import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

/**
 * Log fields that may hold an API key (SPEC 6: never in a log line): the key headers wherever a
 * plugin logs headers, and the raw bytes of a request Node could not parse (Fastify logs them at trace).
 */
const KEY_HEADERS = ['authorization', '"x-api-key"'];
const REDACTED_PATHS = [
  ...['headers', '*.headers'].flatMap((headers) => KEY_HEADERS.map((name) => `${headers}[${name}]`)),
  'err.rawPacket',
];

/**
 * The service's logger. Request logs carry the request id, the method, the path without its query
 * string (which may hold a key or a purchase code), the status and the time taken; never headers
 * or bodies. There are no per-request child loggers (the app hands every request this logger
 * itself, see `childLoggerFactory` in app.ts), so redaction set here covers every line.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'marketplace-api' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination ?? standardOutput(),
  );
}

/**
 * Where the process logs: on a terminal, lines for a person (local time, level, message, fields)
 * through pino-pretty, in this thread and written at once so they keep their order with the
 * banner; otherwise (a pipe, a file, a log collector) one JSON object per line, as before.
 */
export function standardOutput(): DestinationStream {
  if (process.stdout.isTTY) {
    return pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
  }
  return pino.destination(1);
}

/**
 * Waits until every line logged so far has been written. pino's standard-output stream writes
 * asynchronously, and `process.exit` right after a line can cut it off or let a later line (written
 * synchronously on exit) overtake it: the process calls this before it exits.
 */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    logger.flush(() => resolve());
  });
}

import pino, { type DestinationStream, type Logger } from 'pino';

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
    destination ?? pino.destination(1),
  );
}

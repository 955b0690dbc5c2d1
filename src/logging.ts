import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * The service's logger. Request logs carry the method, the path without its query string (which
 * may hold a key or a purchase code), the status and the time taken; never headers or bodies.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, base: { service: 'marketplace-api' } }, destination ?? pino.destination(1));
}

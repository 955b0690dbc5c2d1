import type { FastifyBaseLogger } from 'fastify';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { StoreUnavailableError } from '../store/store.js';

/**
 * What an error thrown while answering comes to, whichever surface answers it (the API door, the
 * workspace, the admin API, health and docs): each turns the kind into its own envelope or page.
 */
export type FailureKind =
  /** The store cannot be reached: 503. */
  | 'serviceUnavailable'
  /** Anything else of the service's own: 500, and nothing internal said. */
  | 'internal'
  /** The client's body, as the body parsers found it. */
  | 'bodyTooLarge'
  | 'unsupportedContentType'
  | 'malformedRequest'
  /** The client went away mid-body: nobody is left to answer. */
  | 'aborted';

export interface Failure {
  readonly kind: FailureKind;
  /** What the log line holds for a failure of the service's own: the store's cause, or the error. */
  readonly cause: unknown;
}

/** Codes Node and Fastify give a body the client stopped sending. */
const ABORTED_BODY = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
]);

/**
 * The one classifier. A client's errors carry a 4xx `statusCode` (Fastify's body parsers and
 * plugins set one); a StoreUnavailableError is the store's; anything else is ours.
 */
export function classifyError(error: unknown): Failure {
  if (error instanceof StoreUnavailableError) return { kind: 'serviceUnavailable', cause: error.cause };
  const { statusCode, code } = (error ?? {}) as { statusCode?: unknown; code?: unknown };
  if (typeof code === 'string' && ABORTED_BODY.has(code)) return { kind: 'aborted', cause: error };
  if (statusCode === 413) return { kind: 'bodyTooLarge', cause: error };
  if (statusCode === 415) return { kind: 'unsupportedContentType', cause: error };
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return { kind: 'malformedRequest', cause: error };
  }
  return { kind: 'internal', cause: error };
}

export interface FailureScene {
  /** Which surface answered ('api', 'admin', 'workspace', ...): the log line says it. */
  readonly surface: string;
  readonly reqId: string;
  readonly log: FastifyBaseLogger;
  /** Where the store's failures are counted (`marketplace_store_errors_total`). */
  readonly metrics: ServiceMetrics | undefined;
}

/**
 * Logs and counts a failure of the service's own (a 5xx), by request id; a client's error is not
 * the service's, and is logged at debug only.
 */
export function reportFailure({ kind, cause }: Failure, { surface, reqId, log, metrics }: FailureScene): void {
  if (kind === 'serviceUnavailable') {
    metrics?.storeError('unavailable');
    log.error({ reqId, surface, err: cause }, 'store unavailable');
  } else if (kind === 'internal') {
    metrics?.storeError('other');
    log.error({ reqId, surface, err: cause }, 'unexpected error');
  } else {
    log.debug({ reqId, surface, kind }, 'request refused');
  }
}

import type { VariantRuntime } from '../variants/variant-runtime.js';
import { ApiError } from './api-error.js';
import type { ApiRequest } from './api-request.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import { type JsonReply, sendError, sendJson } from './reply.js';

/** Answers one API request with its endpoint (see createApiAnswerer). */
export type AnswerApiRequest = (
  endpoint: Endpoint,
  request: ApiRequest,
  reply: JsonReply,
  variant: VariantRuntime,
) => Promise<void>;

/**
 * One API request answered by its endpoint: the success body, or the endpoint's ApiError in the
 * variant's envelope, with the budgets' headers either way. Any other error is thrown, for the
 * caller (the API's door) to answer as a failure of the service's own.
 */
export function createApiAnswerer(context: EndpointContext): AnswerApiRequest {
  const { cache, limits, metrics } = context;
  const keyRefusals = metrics.limiter('key');
  return async (endpoint, request, reply, variant) => {
    cache.refresh(request.started);
    try {
      const body = await endpoint.handle(request, variant, context);
      limits.answered(request, reply);
      sendJson(reply, 200, body);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.kind === 'tooManyRequests') keyRefusals.refused();
      await limits.failed(request, reply, error);
      sendError(reply, variant, error.kind, error.detail);
    }
  };
}

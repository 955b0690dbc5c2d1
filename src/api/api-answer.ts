import type { LimiterMetrics } from '../metrics/service-metrics.js';
import type { VariantRuntime } from '../variants/variant-runtime.js';
import { ApiError, type OrRefusal } from './api-error.js';
import { type Limiter, TooManyRequestsError } from './api-limits.js';
import type { ApiRequest } from './api-request.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import { after, type MaybePromise } from './maybe-async.js';
import { type AnswerBody, type JsonReply, StatusAnswer, sendError, sendJson } from './reply.js';

/**
 * Answers one API request with its endpoint (see createApiAnswerer): at once when the endpoint
 * answered at once, else a promise of the answer sent.
 */
export type AnswerApiRequest = (
  endpoint: Endpoint,
  request: ApiRequest,
  reply: JsonReply,
  variant: VariantRuntime,
) => MaybePromise<void>;

/**
 * One API request answered by its endpoint: the success body, or the refusal the endpoint returned
 * in the variant's envelope, with the budgets' headers either way. Handlers never throw a refusal:
 * whatever is thrown (or rejects the promise) is a failure of the service's own, left for the caller
 * (the API's door) to answer.
 */
export function createApiAnswerer(context: EndpointContext): AnswerApiRequest {
  const { cache, limits, metrics } = context;
  const refusals: Readonly<Record<Limiter, LimiterMetrics>> = {
    client: metrics.limiter('client'),
    key: metrics.limiter('key'),
    report: metrics.limiter('report'),
  };
  const succeeded = (request: ApiRequest, reply: JsonReply, body: AnswerBody) => {
    limits.answered(request, reply);
    if (body instanceof StatusAnswer) sendJson(reply, body.status, body.body);
    else sendJson(reply, 200, body);
  };
  const failed = (request: ApiRequest, reply: JsonReply, variant: VariantRuntime, error: ApiError) => {
    // Only a failure that counts waits (for its place in the shared counters): then the answer goes
    // out after, the failure or, its budget spent meanwhile, the budget's 429.
    return after(limits.failed(request, reply, error), (answered) => {
      if (answered instanceof TooManyRequestsError) refusals[answered.limiter].refused();
      sendError(reply, variant, answered.kind, answered.detail);
    });
  };
  const settled = (request: ApiRequest, reply: JsonReply, variant: VariantRuntime, answer: OrRefusal<AnswerBody>) =>
    answer instanceof ApiError ? failed(request, reply, variant, answer) : succeeded(request, reply, answer);
  return (endpoint, request, reply, variant) => {
    cache.refresh(request.started);
    request.endpointPath = endpoint.path;
    const answer = endpoint.handle(request, variant, context);
    // Not `after`: no closure is made for the answer nearly always here at once.
    return answer instanceof Promise
      ? answer.then((settledAnswer) => settled(request, reply, variant, settledAnswer))
      : settled(request, reply, variant, answer);
  };
}

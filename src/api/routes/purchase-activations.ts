import { purchaseCodeKey } from '../../domain/purchase-code.js';
import { activationView } from '../../store/activations/activation-store.js';
import type { VariantRuntime } from '../../variants/variant-runtime.js';
import { countJson, purchaseOf } from '../activation-answer.js';
import { ApiError, type OrRefusal, unlessRefused } from '../api-error.js';
import type { ApiRequest } from '../api-request.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint, EndpointContext } from '../endpoint.js';
import { after, type MaybePromise } from '../maybe-async.js';
import { apiKeyParam, instanceParam, requiredParam } from '../params.js';
import { type AnswerBody, StatusAnswer } from '../reply.js';
import { validationAnswer } from './purchase-validation.js';

/** A code valid for the key's account: its key and its validation answer (the Purchase is inside). */
interface ValidCode {
  readonly codeKey: string;
  readonly answer: Buffer;
}

/**
 * The key's account and the code checked exactly as validation checks them (the same refusals,
 * counted alike, and the code's activity noted): an activation or a release is a use of the code.
 */
function validCode(request: ApiRequest, variant: VariantRuntime, context: EndpointContext) {
  const { texts } = variant.config;
  const apiKey = apiKeyParam(request, request.body, texts);
  const code = requiredParam('purchase_code', [request.query, request.body], texts);
  const instance = instanceParam([request.query, request.body], texts, true);
  return {
    instance,
    answer: <R>(next: (valid: ValidCode) => MaybePromise<OrRefusal<R>>): MaybePromise<OrRefusal<R>> =>
      unlessRefused(authenticate(request, context, apiKey), (account) => {
        const codeKey = purchaseCodeKey(code);
        return unlessRefused(
          after(codeKey === undefined ? undefined : context.cache.purchase(codeKey, variant), (found) =>
            validationAnswer(found, codeKey, account.username, request, variant, context),
          ),
          (answer) => next({ codeKey: codeKey as string, answer }),
        );
      }),
  };
}

/**
 * Activates an instance (a domain, a machine id: whatever the seller's software names an install
 * by) on a valid code: 201 with the activation made, 200 with the one the instance has already,
 * 409 `activation_limit` when the code holds as many instances as its item allows. Atomic: the
 * store counts and writes in one transaction that holds the purchase.
 */
export const purchaseActivation: Endpoint = {
  method: 'POST',
  path: '/api/purchases/activations',
  handle(request, variant, context) {
    const checked = validCode(request, variant, context);
    return checked.answer(async ({ codeKey, answer }): Promise<OrRefusal<AnswerBody>> => {
      const outcome = await context.activations().activate(codeKey, checked.instance, request.at);
      if (outcome.kind === 'inactive') return ApiError.of('invalidPurchaseCode');
      if (outcome.kind === 'full') return ApiError.of('activationLimit');
      const body = variant.okBody(
        '"data":{"activation":',
        JSON.stringify(activationView(outcome.activation)),
        ',"activations":',
        countJson(outcome.count),
        ',"purchase":',
        purchaseOf(answer, variant),
        '}',
      );
      return outcome.kind === 'created' ? new StatusAnswer(201, body) : body;
    });
  },
};

/** Releases an instance of a valid code, freeing its place: 200 with the code's count, 404 when the instance holds none. */
export const purchaseDeactivation: Endpoint = {
  method: 'POST',
  path: '/api/purchases/deactivation',
  handle(request, variant, context) {
    const checked = validCode(request, variant, context);
    return checked.answer(async ({ codeKey }): Promise<OrRefusal<AnswerBody>> => {
      const outcome = await context.activations().release(codeKey, checked.instance);
      if (outcome.kind === 'unknown') return ApiError.of('activationNotFound');
      return variant.okBody('"data":{"activations":', countJson(outcome.count), '}');
    });
  },
};

import { Type } from '@sinclair/typebox';
import { Activation, ActivationCounts, Purchase } from '../../schemas/resource-schemas.js';
import { activationView } from '../../store/activations/activation-store.js';
import type { VariantRuntime } from '../../variants/variant-runtime.js';
import { countJson, purchaseOf } from '../activation-answer.js';
import { ApiError, unlessRefused } from '../api-error.js';
import type { ApiRequest } from '../api-request.js';
import { authenticate } from '../authenticate.js';
import type { ContractEndpoint, EndpointAnswer, EndpointContext } from '../endpoint.js';
import { apiKeyParam, instanceParam, requiredParam } from '../params.js';
import { StatusAnswer } from '../reply.js';
import { type ValidCode, withValidCode } from '../validation-answer.js';
import { INSTANCE_PARAM, PURCHASE_CODE_PARAM } from './code-params.js';

/**
 * The parameters read, then the key's account and the code checked exactly as validation checks
 * them (the same refusals, counted alike, and the code's activity noted): an activation or a
 * release is a use of the code. `next` answers for a valid code and the instance.
 */
function withValidInstance(
  request: ApiRequest,
  variant: VariantRuntime,
  context: EndpointContext,
  next: (valid: ValidCode, instance: string) => EndpointAnswer,
): EndpointAnswer {
  const { texts } = variant.config;
  const apiKey = apiKeyParam(request, request.body, texts);
  if (apiKey instanceof ApiError) return apiKey;
  const code = requiredParam('purchase_code', [request.query, request.body], texts);
  if (code instanceof ApiError) return code;
  const instance = instanceParam([request.query, request.body], texts, true);
  if (instance instanceof ApiError) return instance;
  return unlessRefused(authenticate(request, context, apiKey), (account) =>
    withValidCode(account, code, request, variant, context, (valid) => next(valid, instance)),
  );
}

/**
 * Activates an instance (a domain, a machine id: whatever the seller's software names an install
 * by) on a valid code: 201 with the activation made, 200 with the one the instance has already,
 * 409 `activation_limit` when the code holds as many instances as its item allows. Atomic: the
 * store counts and writes in one transaction that holds the purchase.
 */
export const purchaseActivation: ContractEndpoint = {
  method: 'POST',
  path: '/api/purchases/activations',
  contract: {
    shape: 'contract',
    operationId: 'purchaseActivation',
    summary: 'Activate an install',
    description:
      'Activates `instance` on a valid code: 201 with the new activation, 200 with the one the instance has already, ' +
      "409 when the code holds as many instances as its item's activation limit allows. Any other code answers " +
      'exactly what validation answers for it.',
    params: [PURCHASE_CODE_PARAM, INSTANCE_PARAM],
    success: {
      data: Type.Object(
        { activation: Activation, activations: ActivationCounts, purchase: Purchase },
        { additionalProperties: false },
      ),
    },
    successStatuses: [201, 200],
    notFound: ['invalidPurchaseCode'],
    conflict: ['activationLimit'],
  },
  handle(request, variant, context) {
    return withValidInstance(request, variant, context, async ({ codeKey, answer }, instance) => {
      const outcome = await context.activations.activate(codeKey, instance, request.at);
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
export const purchaseDeactivation: ContractEndpoint = {
  method: 'POST',
  path: '/api/purchases/deactivation',
  contract: {
    shape: 'contract',
    operationId: 'purchaseDeactivation',
    summary: 'Release an install',
    description:
      "Releases `instance` from a valid code, freeing its place: 200 with the code's count, 404 when the instance " +
      'holds no activation of the code. Any other code answers exactly what validation answers for it.',
    params: [PURCHASE_CODE_PARAM, INSTANCE_PARAM],
    success: { data: Type.Object({ activations: ActivationCounts }, { additionalProperties: false }) },
    notFound: ['invalidPurchaseCode', 'activationNotFound'],
  },
  handle(request, variant, context) {
    return withValidInstance(request, variant, context, async ({ codeKey }, instance) => {
      const outcome = await context.activations.release(codeKey, instance);
      if (outcome.kind === 'unknown') return ApiError.of('activationNotFound');
      return variant.okBody('"data":{"activations":', countJson(outcome.count), '}');
    });
  },
};

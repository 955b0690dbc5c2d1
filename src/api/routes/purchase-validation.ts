import { Type } from '@sinclair/typebox';
import { purchaseCodeKey } from '../../domain/purchase-code.js';
import { Activation, Purchase } from '../../schemas/resource-schemas.js';
import { withActivation } from '../activation-answer.js';
import { ApiError, unlessRefused } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { ContractEndpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam, instanceParam, requiredParam } from '../params.js';
import { validateCode } from '../validation-answer.js';
import { INSTANCE_PARAM, PURCHASE_CODE_PARAM } from './code-params.js';

export const purchaseValidation: ContractEndpoint = {
  method: 'POST',
  path: '/api/purchases/validation',
  contract: {
    shape: 'contract',
    operationId: 'purchaseValidation',
    summary: 'Validate a purchase code',
    description:
      "The purchase, when the code (trimmed, any letter case) is active and its item belongs to the key's account; " +
      'any other code is a 404.',
    params: [
      PURCHASE_CODE_PARAM,
      {
        ...INSTANCE_PARAM,
        description:
          "Optional: an install to ask about. Given, the answer adds `activation` (the instance's activation, or null)",
        required: false,
      },
    ],
    success: {
      data: Type.Object(
        {
          purchase: Purchase,
          activation: Type.Optional(
            Type.Union([Activation, Type.Null()], {
              description: "Only when `instance` was given: the instance's activation of the code, or null",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    },
    notFound: ['invalidPurchaseCode'],
  },
  handle(request, variant, context) {
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, request.body, texts);
    if (apiKey instanceof ApiError) return apiKey;
    const code = requiredParam('purchase_code', [request.query, request.body], texts);
    if (code instanceof ApiError) return code;
    const instance = instanceParam([request.query, request.body], texts, false);
    if (instance instanceof ApiError) return instance;
    return unlessRefused(authenticate(request, context, apiKey), (account) => {
      const answer = validateCode(account, code, request, variant, context);
      // A valid answer means the code has a key. Without an instance, the answer as it always was: no store query, no copy.
      if (instance === undefined) return answer;
      return unlessRefused(answer, (valid) =>
        after(context.activations.validated(purchaseCodeKey(code) as string, instance, request.at), (activation) =>
          withActivation(valid, activation),
        ),
      );
    });
  },
};

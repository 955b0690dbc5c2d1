import { License } from '../../schemas/resource-schemas.js';
import { ApiError, unlessRefused } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { ContractEndpoint } from '../endpoint.js';
import { apiKeyParam, optionalParam, requiredParam } from '../params.js';
import { withValidCode } from '../validation-answer.js';
import { PURCHASE_CODE_PARAM } from './code-params.js';

/** The longest `instance` a token carries. */
const INSTANCE_MAX = 255;

const LICENSE_NAMES = { regular: 'Regular', extended: 'Extended' } as const;

/**
 * An offline license token for a valid purchase code (see src/signing/license-tokens.ts): the code is
 * checked exactly as by validation (and counted as a validation), then a token signed with the
 * deployment's key says which purchase, item and license it is, and, when the seller's software named
 * one, for which installation.
 */
export const purchaseLicense: ContractEndpoint = {
  method: 'POST',
  path: '/api/purchases/license',
  contract: {
    shape: 'contract',
    operationId: 'purchaseLicense',
    summary: 'Offline license token',
    description:
      'A license token for a valid purchase code: a JWS (EdDSA, the keys at `{base}/.well-known/jwks.json`, `kid` in ' +
      'its header) whose claims are `iss` (the base URL), `iat`, `exp`, `purchase_code`, `item_id`, `license_type` ' +
      "and `instance` when given. The seller's software checks it offline until `exp`. A code that is not valid " +
      'answers exactly what validation answers for it.',
    params: [
      PURCHASE_CODE_PARAM,
      {
        name: 'instance',
        description: `The installation the token is for (1 to ${INSTANCE_MAX} characters), carried in its \`instance\` claim`,
        sources: ['query', 'body'],
        required: false,
      },
    ],
    success: { data: License },
    notFound: ['invalidPurchaseCode'],
  },
  handle(request, variant, context) {
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, request.body, texts);
    if (apiKey instanceof ApiError) return apiKey;
    const code = requiredParam('purchase_code', [request.query, request.body], texts);
    if (code instanceof ApiError) return code;
    const instance = optionalParam('instance', [request.query, request.body], texts);
    if (instance instanceof ApiError) return instance;
    if (instance !== undefined && [...instance].length > INSTANCE_MAX) {
      return new ApiError(
        'badParameter',
        texts.parameter.malformed('instance', texts.expectations.shortText(INSTANCE_MAX)),
      );
    }
    return unlessRefused(authenticate(request, context, apiKey), (account) =>
      withValidCode(account, code, request, variant, context, ({ purchase: { row } }) => {
        const license = context.licenses.issue({
          issuer: variant.config.baseUrl,
          purchaseCode: row.code,
          itemId: row.item_id,
          licenseType: LICENSE_NAMES[row.license_type],
          instance,
        });
        const expiresAt = new Date(license.expiresAt).toISOString();
        return variant.okBody('"data":', JSON.stringify({ license: license.token, expires_at: expiresAt }));
      }),
    );
  },
};

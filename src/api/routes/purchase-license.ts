import { purchaseCodeKey } from '../../domain/purchase-code.js';
import { ApiError, unlessRefused } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam, optionalParam, requiredParam } from '../params.js';
import { validationAnswer } from './purchase-validation.js';

/** The longest `instance` a token carries. */
const INSTANCE_MAX = 255;

const LICENSE_NAMES = { regular: 'Regular', extended: 'Extended' } as const;

/**
 * An offline license token for a valid purchase code (see src/signing/license-tokens.ts): the code is
 * checked exactly as by validation (and counted as a validation), then a token signed with the
 * deployment's key says which purchase, item and license it is, and, when the seller's software named
 * one, for which installation.
 */
export const purchaseLicense: Endpoint = {
  method: 'POST',
  path: '/api/purchases/license',
  handle(request, variant, context) {
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, request.body, texts);
    const code = requiredParam('purchase_code', [request.query, request.body], texts);
    const instance = optionalParam('instance', [request.query, request.body], texts);
    if (instance !== undefined && [...instance].length > INSTANCE_MAX) {
      throw new ApiError(
        'badParameter',
        texts.parameter.malformed('instance', texts.expectations.shortText(INSTANCE_MAX)),
      );
    }
    return unlessRefused(authenticate(request, context, apiKey), (account) => {
      const codeKey = purchaseCodeKey(code);
      return after(codeKey === undefined ? undefined : context.cache.purchase(codeKey, variant), (found) => {
        const refused = validationAnswer(found, codeKey, account.username, request, variant, context);
        if (refused instanceof ApiError || found === undefined) return refused;
        const { row } = found;
        const license = context.licenses.issue({
          issuer: variant.config.baseUrl,
          purchaseCode: row.code,
          itemId: row.item_id,
          licenseType: LICENSE_NAMES[row.license_type],
          instance,
        });
        const expiresAt = new Date(license.expiresAt).toISOString();
        return variant.okBody('"data":', JSON.stringify({ license: license.token, expires_at: expiresAt }));
      });
    });
  },
};

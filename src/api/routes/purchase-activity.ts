import { Type } from '@sinclair/typebox';
import { purchaseCodeKey } from '../../domain/purchase-code.js';
import { PurchaseActivity } from '../../schemas/resource-schemas.js';
import { ApiError, unlessRefused } from '../api-error.js';
import { authenticateReport } from '../authenticate.js';
import type { ContractEndpoint } from '../endpoint.js';
import { apiKeyParam, requiredParam } from '../params.js';
import { reportOrBusy } from './activity-busy.js';

const isoOrNull = (at: number | undefined) => (at === undefined ? null : new Date(at).toISOString());

/**
 * How one of the seller's codes is used: validations and distinct client networks over
 * the retained days, and per day. A code that is not the seller's answers exactly what validation
 * answers for it, so that nobody learns whether another seller's code exists; a code of theirs that
 * was never validated answers zeros and nulls.
 */
export const purchaseActivity: ContractEndpoint = {
  method: 'GET',
  path: '/api/purchases/activity',
  contract: {
    shape: 'contract',
    operationId: 'purchaseActivity',
    summary: 'How a purchase code is used',
    description:
      "Validations and distinct client networks of one of the key's account's codes (valid, refunded or cancelled), " +
      'over the retained days and per day. Any other code answers exactly what validation answers for it (404); ' +
      'a code never validated answers zeros and nulls. Counts are written every few seconds. ' +
      "Each call takes one from the key's report budget, whichever client calls: past it, 429.",
    params: [{ name: 'purchase_code', description: "The buyer's purchase code", sources: ['query'] }],
    success: { data: Type.Object({ activity: PurchaseActivity }, { additionalProperties: false }) },
    notFound: ['invalidPurchaseCode'],
  },
  handle(request, variant, context) {
    const { cache, activity } = context;
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, undefined, texts);
    if (apiKey instanceof ApiError) return apiKey;
    const code = requiredParam('purchase_code', [request.query], texts);
    if (code instanceof ApiError) return code;
    return unlessRefused(authenticateReport(request, context, apiKey), async (account) => {
      const codeKey = purchaseCodeKey(code);
      const found = codeKey === undefined ? undefined : await cache.purchase(codeKey, variant);
      if (codeKey === undefined || found === undefined || found.owner !== account.username) {
        return ApiError.of('invalidPurchaseCode');
      }
      const report = await reportOrBusy(activity.ofCode(account.username, codeKey));
      if (report instanceof ApiError) return report;
      const body = {
        purchase_code: found.row.code,
        validations: report.validations,
        networks: report.networks,
        first_seen: isoOrNull(report.firstSeen),
        last_seen: isoOrNull(report.lastSeen),
        days: report.days.map((day) => ({ date: day.date, validations: day.validations, networks: day.networks })),
      };
      return variant.okBody('"data":{"activity":', JSON.stringify(body), '}');
    });
  },
};

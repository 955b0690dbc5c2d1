import { purchaseCodeKey } from '../../domain/purchase-code.js';
import { ApiError } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam, requiredParam } from '../params.js';
import { reportOrBusy } from './activity-busy.js';

const isoOrNull = (at: number | undefined) => (at === undefined ? null : new Date(at).toISOString());

/**
 * How one of the seller's codes is used (issue 24): validations and distinct client networks over
 * the retained days, and per day. A code that is not the seller's answers exactly what validation
 * answers for it, so that nobody learns whether another seller's code exists; a code of theirs that
 * was never validated answers zeros and nulls.
 */
export const purchaseActivity: Endpoint = {
  method: 'GET',
  path: '/api/purchases/activity',
  async handle(request, variant, context) {
    const { cache, activity } = context;
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, undefined, texts);
    const code = requiredParam('purchase_code', [request.query], texts);
    const account = await authenticate(request, context, apiKey);
    if (account instanceof ApiError) return account;
    const codeKey = purchaseCodeKey(code);
    const found = codeKey === undefined ? undefined : await cache.purchase(codeKey, variant);
    if (codeKey === undefined || found === undefined || found.owner !== account.username) {
      throw ApiError.of('invalidPurchaseCode');
    }
    const report = await reportOrBusy(activity.ofCode(account.username, codeKey));
    const body = {
      purchase_code: found.row.code,
      validations: report.validations,
      networks: report.networks,
      first_seen: isoOrNull(report.firstSeen),
      last_seen: isoOrNull(report.lastSeen),
      days: report.days.map((day) => ({ date: day.date, validations: day.validations, networks: day.networks })),
    };
    return variant.okBody('"data":{"activity":', JSON.stringify(body), '}');
  },
};

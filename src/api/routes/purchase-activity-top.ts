import { ApiError } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam, wholeNumberParam } from '../params.js';
import { reportOrBusy } from './activity-busy.js';

/** The window asked for when none is: a month, or all that is kept when less is. */
export const TOP_DEFAULT_DAYS = 30;
export const TOP_DEFAULT_LIMIT = 50;
export const TOP_MAX_LIMIT = 100;

/**
 * The seller's codes seen from the most distinct client networks in the last `days` days, most
 * first (issue 24): the leaked codes, before anyone else notices them. Codes that have since
 * passed to another seller are left out. The list is made off this thread (see
 * activity-reports.ts); here only its at most `limit` codes are looked up.
 */
export const purchaseActivityTop: Endpoint = {
  method: 'GET',
  path: '/api/purchases/activity/top',
  async handle(request, variant, context) {
    const { cache, activity } = context;
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, undefined, texts);
    const retention = activity.retentionDays;
    const days = wholeNumberParam(
      'days',
      [request.query],
      { min: 1, max: retention, fallback: Math.min(TOP_DEFAULT_DAYS, retention) },
      texts,
    );
    const limit = wholeNumberParam(
      'limit',
      [request.query],
      { min: 1, max: TOP_MAX_LIMIT, fallback: TOP_DEFAULT_LIMIT },
      texts,
    );
    const account = await authenticate(request, context, apiKey);
    if (account instanceof ApiError) return account;
    const top = await reportOrBusy(activity.top(account.username, days, limit));
    const codes = [];
    for (const code of top) {
      const found = await cache.purchase(code.codeKey, variant);
      if (found === undefined || found.owner !== account.username) continue;
      codes.push({
        purchase_code: found.row.code,
        item_id: found.row.item_id,
        purchase_status: found.row.status,
        validations: code.validations,
        networks: code.networks,
        first_seen: new Date(code.firstSeen).toISOString(),
        last_seen: new Date(code.lastSeen).toISOString(),
      });
    }
    return variant.okBody('"data":', JSON.stringify({ days, codes }));
  },
};

import { Type } from '@sinclair/typebox';
import type { TopCode } from '../../activity/activity-report.js';
import type { EndpointParam } from '../../schemas/endpoint-contract.js';
import { ActiveCode } from '../../schemas/resource-schemas.js';
import { ApiError, unlessRefused } from '../api-error.js';
import { authenticateReport } from '../authenticate.js';
import type { ContractEndpoint, EndpointSettings } from '../endpoint.js';
import { apiKeyParam, wholeNumberParam } from '../params.js';
import { reportOrBusy } from './activity-busy.js';

/** The window asked for when none is: a month, or all that is kept when less is. */
const TOP_DEFAULT_DAYS = 30;
const TOP_DEFAULT_LIMIT = 50;
/** The longest list: its codes are looked up one by one on the serving thread. */
const TOP_MAX_LIMIT = 100;

/** The query's whole numbers: digits, blanks around them read as nothing. */
const WHOLE_NUMBER_PATTERN = '^\\s*\\d{1,9}\\s*$';

/**
 * The seller's codes seen from the most distinct client networks in the last `days` days, most
 * first: the leaked codes, before anyone else notices them. Codes that have since
 * passed to another seller are left out. The list is made off this thread (see
 * activity-reports.ts); here only its at most `limit` codes are looked up. Built from the config:
 * `days` goes back at most as far as activity is kept (`activity.retentionDays`), in the
 * documents as in the answers.
 */
export function createPurchaseActivityTop({ activity }: EndpointSettings): ContractEndpoint {
  const retention = activity.retentionDays;
  const daysParam = {
    name: 'days',
    description: `The window in days, today (UTC) included; ${TOP_DEFAULT_DAYS} when left out`,
    sources: ['query'],
    pattern: WHOLE_NUMBER_PATTERN,
    required: false,
    range: { min: 1, max: retention },
  } as const satisfies EndpointParam;
  const limitParam = {
    name: 'limit',
    description: `How many codes at most; ${TOP_DEFAULT_LIMIT} when left out`,
    sources: ['query'],
    pattern: WHOLE_NUMBER_PATTERN,
    required: false,
    range: { min: 1, max: TOP_MAX_LIMIT },
  } as const satisfies EndpointParam;
  const defaultDays = Math.min(TOP_DEFAULT_DAYS, retention);
  /**
   * The answers made from a report, by variant, while the cache hears no change. A report is given
   * again for a while (activity-reports.ts), and a list asked in a loop is then looked up and
   * written once per report and variant rather than once per call. Held as long as the report is.
   */
  const answers = new WeakMap<
    readonly TopCode[],
    { readonly changesHeard: number; readonly bodies: Map<number, Buffer> }
  >();
  return {
    method: 'GET',
    path: '/api/purchases/activity/top',
    contract: {
      shape: 'contract',
      operationId: 'purchaseActivityTop',
      summary: 'Codes used from the most networks',
      description:
        "The key's account's codes seen from the most distinct client networks in the last `days` days, most first " +
        '(then most validations): a code bought once and validated from many networks has usually leaked. ' +
        "Each call takes one from the key's report budget, whichever client calls: past it, 429.",
      params: [daysParam, limitParam],
      success: {
        data: Type.Object(
          {
            days: Type.Integer({ minimum: 1, description: 'The window the list covers' }),
            codes: Type.Array(ActiveCode),
          },
          { additionalProperties: false },
        ),
      },
      notFound: [],
    },
    handle(request, variant, context) {
      const { cache } = context;
      const { texts } = variant.config;
      const apiKey = apiKeyParam(request, undefined, texts);
      if (apiKey instanceof ApiError) return apiKey;
      const days = wholeNumberParam(daysParam, [request.query], defaultDays, texts);
      if (days instanceof ApiError) return days;
      const limit = wholeNumberParam(limitParam, [request.query], TOP_DEFAULT_LIMIT, texts);
      if (limit instanceof ApiError) return limit;
      return unlessRefused(authenticateReport(request, context, apiKey), async (account) => {
        const top = await reportOrBusy(context.activity.top(account.username, days, limit));
        if (top instanceof ApiError) return top;
        const changesHeard = cache.changesHeard;
        let made = answers.get(top);
        if (made === undefined || made.changesHeard !== changesHeard) {
          made = { changesHeard, bodies: new Map() };
          answers.set(top, made);
        }
        const kept = made.bodies.get(variant.index);
        if (kept !== undefined) return kept;
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
        const body = variant.keptOkBody('"data":', JSON.stringify({ days, codes }));
        // A change heard while the codes were looked up may have dropped one of them: not kept then.
        if (cache.changesHeard === changesHeard) made.bodies.set(variant.index, body);
        return body;
      });
    },
  };
}

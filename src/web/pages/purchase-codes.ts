import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { purchaseCodeKey } from '../../domain/purchase-code.js';
import { activationLimitFromText, setItemActivationLimit } from '../../operations/activation-operations.js';
import {
  CHART_DAYS,
  codeDetails,
  codeRows,
  codeRowsCsv,
  dayChart,
  PAGE_WINDOWS,
  pageFormats,
} from '../purchase-codes-page.js';
import { FormText } from '../request-parts.js';
import type { PageKit } from './page-kit.js';

/** The window a query asks for: one of the page's, else the first. */
const Window = Type.Transform(Type.Unknown())
  .Decode((value): number => {
    const asked = Number(value);
    return (PAGE_WINDOWS as readonly number[]).includes(asked) ? asked : PAGE_WINDOWS[0];
  })
  .Encode((days) => String(days));

/** What a seller typed in the search, trimmed and bounded (a purchase code has at most 100 characters). */
const Search = Type.Transform(Type.Unknown())
  .Decode((value): string => (typeof value === 'string' ? value.trim().slice(0, 200) : ''))
  .Encode((search) => search);

/** `limit=bad`: the activation limit a seller typed was not one, said on the code's card. */
const BadLimit = Type.Transform(Type.Unknown())
  .Decode((value): boolean => value === 'bad')
  .Encode((bad) => (bad ? 'bad' : undefined));

const PageQuery = Type.Object({ days: Window, code: Search, limit: BadLimit });
const CsvQuery = Type.Object({ days: Window });

/** A form of a code's card: the code, and what the form changes (an install to release, a limit). */
const ReleaseForm = Type.Object({ code: FormText, instance: FormText });
const LimitForm = Type.Object({ code: FormText, limit: FormText });

/**
 * `{base}/workspace/purchase-codes`: the seller's codes used from the most networks (the table and
 * its CSV), and one code found by a search: its chart, its installs (release one) and its item's
 * activation limit.
 */
export function purchaseCodesPages(kit: PageKit): void {
  const { store, activity, config } = kit.deps;
  const url = kit.urls.purchaseCodes;

  kit.workspacePage({
    method: 'GET',
    url,
    schema: { querystring: PageQuery },
    handler: async (request, reply, t, who) => {
      const { days, code: search, limit: badLimit } = request.query;
      const { username } = who.account;
      const codeKey = search === '' ? undefined : purchaseCodeKey(search);
      const found = codeKey === undefined ? undefined : await codeDetails(store, activity, username, codeKey);
      const rows = search === '' ? await codeRows(store, activity, username, days) : [];
      return kit.renderPage(reply, 200, 'purchase-codes', {
        ...kit.context(request, reply, t, who),
        title: t.purchaseCodes.title,
        nav: 'purchaseCodes',
        url,
        days,
        windows: PAGE_WINDOWS,
        search,
        notYours: search !== '' && found === undefined,
        found,
        chart: found && dayChart(found.activity),
        chartDays: CHART_DAYS,
        rows,
        badLimit,
        flushSeconds: config.activity.flushSeconds,
        retentionDays: config.activity.retentionDays,
        f: pageFormats(t.locale),
      });
    },
  });

  /** Back to the code's card after one of its forms (Post/Redirect/Get). */
  const toCode = (reply: FastifyReply, code: string, extra = '') =>
    reply.redirect(`${url}?code=${encodeURIComponent(code)}${extra}`, 303);

  /** The item of one of the seller's codes, or undefined when the code is not theirs. */
  const itemOfCode = async (codeKey: string | undefined, username: string) => {
    const purchase = codeKey === undefined ? undefined : await store.purchase(codeKey);
    const item = purchase && (await store.item(purchase.item_id));
    return item?.account === username ? item : undefined;
  };

  // Releases one install of one of the seller's codes (a code that is not theirs: back to the search).
  kit.workspacePage({
    method: 'POST',
    url: `${url}/release`,
    schema: { body: ReleaseForm },
    handler: async (request, reply, _t, who) => {
      const code = request.body.code.trim();
      const codeKey = purchaseCodeKey(code);
      if (codeKey !== undefined && (await itemOfCode(codeKey, who.account.username)) !== undefined) {
        await store.activations().release(codeKey, request.body.instance);
      }
      return toCode(reply, code);
    },
  });

  // Sets the activation limit of the item of one of the seller's codes.
  kit.workspacePage({
    method: 'POST',
    url: `${url}/activation-limit`,
    schema: { body: LimitForm },
    handler: async (request, reply, _t, who) => {
      const code = request.body.code.trim();
      const item = await itemOfCode(purchaseCodeKey(code), who.account.username);
      if (item === undefined) return toCode(reply, code);
      const limit = activationLimitFromText(request.body.limit);
      if (limit === undefined) return toCode(reply, code, '&limit=bad');
      await setItemActivationLimit(store, item.id, limit);
      return toCode(reply, code);
    },
  });

  kit.workspacePage({
    method: 'GET',
    url: `${url}/export.csv`,
    schema: { querystring: CsvQuery },
    handler: async (request, reply, _t, who) => {
      const { days } = request.query;
      const rows = await codeRows(store, activity, who.account.username, days);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="purchase-codes-last-${days}-days.csv"`)
        .send(codeRowsCsv(rows));
    },
  });
}

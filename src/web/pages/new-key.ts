import { Type } from '@sinclair/typebox';
import { KeyManagedByMarketbobError, rotateAccountKey } from '../../operations/account-keys.js';
import { FormText } from '../request-parts.js';
import type { PageKit } from './page-kit.js';

/** The confirmation's form: "End the old key now" ticked (`1`) or not. */
const ConfirmForm = Type.Object({ end_old_key: FormText });

/**
 * `{base}/workspace/settings/generate`: a new API key for the account, after a confirmation that
 * says when the old one stops (at once, or after the configured grace). Not offered for a key
 * MarketBob owns.
 */
export function newKeyPages(kit: PageKit): void {
  const { store, keys, config } = kit.deps;
  const settingsUrl = kit.urls.settings;
  const generateUrl = `${settingsUrl}/generate`;

  kit.workspacePage({
    method: 'POST',
    url: generateUrl,
    handler: async (_request, reply) => reply.redirect(generateUrl, 303),
  });

  kit.workspacePage({
    method: 'GET',
    url: generateUrl,
    handler: async (request, reply, t, who) => {
      // Not offered for a key the marketplace owns: the settings page says where to replace it.
      if ((await store.marketbobUserId(who.account.username)) !== undefined) return reply.redirect(settingsUrl, 303);
      const grace = config.keyRotationGraceSeconds;
      return kit.renderPage(reply, 200, 'confirm', {
        ...kit.context(request, reply, t, who),
        title: t.confirm.title,
        nav: 'settings',
        consequence: grace > 0 ? t.confirm.stopsAfterGrace(t.duration(grace)) : t.confirm.stopsAtOnce,
        offerEndNow: grace > 0,
      });
    },
  });

  kit.workspacePage({
    method: 'POST',
    url: `${generateUrl}/confirm`,
    schema: { body: ConfirmForm },
    handler: async (request, reply, _t, who) => {
      // "End the old key now": a rotation without grace stops the old key (and any retired one) at once.
      const endNow = request.body.end_old_key === '1';
      const grace = endNow ? 0 : config.keyRotationGraceSeconds;
      const rotated = await rotateAccountKey(store, keys, who.account.username, grace).catch((error: unknown) => {
        if (error instanceof KeyManagedByMarketbobError) return 'managed' as const;
        throw error;
      });
      if (rotated === 'managed') return reply.redirect(settingsUrl, 303);
      if (!rotated) return kit.signedIn(request, reply);
      return kit.redirectWith(reply, who, settingsUrl, {
        rotated: { oldKeyWorksUntil: rotated.oldKeyWorksUntil?.getTime() ?? null },
      });
    },
  });
}

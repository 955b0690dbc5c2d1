import { Type } from '@sinclair/typebox';
import { createNamedKey, revokeNamedKey } from '../../operations/named-keys.js';
import { readNamedKeyForm } from '../named-keys-section.js';
import { AsGiven } from '../request-parts.js';
import type { PageKit } from './page-kit.js';

/** The "Add a key" form: a name and a scope, read (and answered when wrong) by readNamedKeyForm. */
const NamedKeyForm = Type.Object({ name: AsGiven, scope: AsGiven });

/** The key a Revoke button names. */
const NamedKeyParams = Type.Object({ id: Type.String() });

/**
 * The settings page's "More keys" card: `POST {base}/workspace/settings/keys` adds a named key,
 * `.../keys/{id}/revoke` ends one; each returns to the settings page, which says what happened.
 */
export function namedKeysPages(kit: PageKit): void {
  const { store, keys } = kit.deps;
  const settingsUrl = kit.urls.settings;

  kit.workspacePage({
    method: 'POST',
    url: `${settingsUrl}/keys`,
    schema: { body: NamedKeyForm },
    handler: async (request, reply, _t, who) => {
      const form = readNamedKeyForm(request.body);
      if ('problem' in form) return kit.redirectWith(reply, who, settingsUrl, { namedKey: form });
      const created = await createNamedKey(store, keys, who.account.username, form.name, form.scope);
      if (!created) return kit.signedIn(request, reply);
      // The flash names the key, never holds it: the page decrypts it once from the store.
      return kit.redirectWith(reply, who, settingsUrl, { namedKey: { created: created.id } });
    },
  });

  kit.workspacePage({
    method: 'POST',
    url: `${settingsUrl}/keys/:id/revoke`,
    schema: { params: NamedKeyParams },
    handler: async (request, reply, _t, who) => {
      const { id } = request.params;
      const name = (await store.namedKeys(who.account.username)).find((key) => key.id === id)?.name;
      const outcome = await revokeNamedKey(store, who.account.username, id);
      return kit.redirectWith(
        reply,
        who,
        settingsUrl,
        outcome === 'revoked' && name !== undefined ? { namedKey: { revoked: name } } : undefined,
      );
    },
  });
}

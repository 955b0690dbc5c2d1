import { Type } from '@sinclair/typebox';
import { createNamedKey, NAMED_KEY_PROBLEMS } from '../../operations/named-keys.js';
import { sendAdminError, sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountParams, KeyName, KeyScopeField } from './admin-params.js';

/** `{"name": ..., "scope": "full" | "validate"}`. */
const NamedKeyBody = Type.Object({ name: KeyName, scope: KeyScopeField });

/**
 * `POST /accounts/{username}/api-keys`: a named key beside the account's own (`/api-key`); its
 * secret is in this answer only.
 */
export const addApiKeyRoute = adminRoute({
  method: 'POST',
  url: '/accounts/:username/api-keys',
  schema: { params: AccountParams, body: NamedKeyBody },
  handler: async (request, reply, { store, keys }) => {
    const { name, scope } = request.body;
    if (name === undefined) return sendAdminError(reply, 'malformed_request', NAMED_KEY_PROBLEMS.name);
    if (scope === undefined) return sendAdminError(reply, 'malformed_request', NAMED_KEY_PROBLEMS.scope);
    const created = await createNamedKey(store, keys, request.params.username, name, scope);
    if (!created) return sendAdminError(reply, 'account_not_found');
    request.log.info({ reqId: request.id, action: 'add api key' }, 'admin: account changed');
    return sendAdminJson(reply, 201, { id: created.id, name: created.name, scope: created.scope, key: created.key });
  },
});

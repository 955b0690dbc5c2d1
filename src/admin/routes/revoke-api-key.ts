import { revokeNamedKey } from '../../operations/named-keys.js';
import { sendAdminError, sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountItemParams } from './admin-params.js';

/** `DELETE /accounts/{username}/api-keys/{id}`: the named key ends at once, everywhere. */
export const revokeApiKeyRoute = adminRoute({
  method: 'DELETE',
  url: '/accounts/:username/api-keys/:id',
  schema: { params: AccountItemParams },
  handler: async (request, reply, { store }) => {
    const outcome = await revokeNamedKey(store, request.params.username, request.params.id);
    if (outcome === 'no-account') return sendAdminError(reply, 'account_not_found');
    if (outcome === 'no-key') return sendAdminError(reply, 'api_key_not_found');
    request.log.info({ reqId: request.id, action: 'revoke api key' }, 'admin: account changed');
    return sendAdminJson(reply, 200, { id: request.params.id, revoked: true });
  },
});

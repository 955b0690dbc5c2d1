import { listNamedKeys, namedKeyBody } from '../../operations/named-keys.js';
import { sendAdminError, sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountParams } from './admin-params.js';

/** `GET /accounts/{username}/api-keys`: the account's named keys (never their secrets). */
export const listApiKeysRoute = adminRoute({
  method: 'GET',
  url: '/accounts/:username/api-keys',
  schema: { params: AccountParams },
  handler: async (request, reply, { store }) => {
    const found = await listNamedKeys(store, request.params.username);
    if (found === undefined) return sendAdminError(reply, 'account_not_found');
    return sendAdminJson(reply, 200, { api_keys: found.map(namedKeyBody) });
  },
});

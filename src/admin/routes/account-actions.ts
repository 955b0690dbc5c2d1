import { type AccountAction, applyAccountAction } from '../../operations/account-operations.js';
import { sendAdminError, sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountParams } from './admin-params.js';

/** `POST /accounts/{username}/suspend|reactivate`: the account as it now is. */
export const accountActionRoutes = (['suspend', 'reactivate'] as const satisfies readonly AccountAction[]).map(
  (action) =>
    adminRoute({
      method: 'POST',
      url: `/accounts/:username/${action}`,
      schema: { params: AccountParams },
      handler: async (request, reply, { store }) => {
        const account = await applyAccountAction(store, request.params.username, action);
        if (!account) return sendAdminError(reply, 'account_not_found');
        request.log.info({ reqId: request.id, action }, 'admin: account changed');
        return sendAdminJson(reply, 200, account);
      },
    }),
);

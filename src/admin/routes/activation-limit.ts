import { Type } from '@sinclair/typebox';
import { ACTIVATION_LIMIT_RULE, setItemActivationLimit } from '../../operations/activation-operations.js';
import { sendAdminError, sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { ActivationLimit } from './admin-params.js';

const ItemParams = Type.Object({ id: Type.String() });
/** `{"activation_limit": N}`, or null for none. */
const ActivationLimitBody = Type.Object({ activation_limit: ActivationLimit });

/** `PUT /items/{id}/activation-limit`: an item's activation limit. */
export const activationLimitRoute = adminRoute({
  method: 'PUT',
  url: '/items/:id/activation-limit',
  schema: { params: ItemParams, body: ActivationLimitBody },
  handler: async (request, reply, { store }) => {
    const id = /^\d{1,15}$/.test(request.params.id) ? Number(request.params.id) : 0;
    if (id < 1) return sendAdminError(reply, 'item_not_found');
    const limit = request.body.activation_limit;
    if (limit === undefined) {
      return sendAdminError(reply, 'malformed_request', `activation_limit must be ${ACTIVATION_LIMIT_RULE} (null)`);
    }
    if (!(await setItemActivationLimit(store, id, limit))) return sendAdminError(reply, 'item_not_found');
    request.log.info({ reqId: request.id, action: 'set activation limit' }, 'admin: item changed');
    return sendAdminJson(reply, 200, { item_id: id, activation_limit: limit });
  },
});

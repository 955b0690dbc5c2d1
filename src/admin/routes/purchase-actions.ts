import { Type } from '@sinclair/typebox';
import { applyPurchaseAction, type PurchaseAction } from '../../operations/purchase-operations.js';
import { sendAdminError, sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';

const PurchaseParams = Type.Object({ code: Type.String() });

/** `POST /purchases/{code}/refund|cancel|downloaded`: the purchase as it now is. */
export const purchaseActionRoutes = (
  ['refund', 'cancel', 'downloaded'] as const satisfies readonly PurchaseAction[]
).map((action) =>
  adminRoute({
    method: 'POST',
    url: `/purchases/:code/${action}`,
    schema: { params: PurchaseParams },
    handler: async (request, reply, { store }) => {
      const result = await applyPurchaseAction(store, request.params.code, action);
      if (!result.ok) return sendAdminError(reply, result.problem);
      request.log.info({ reqId: request.id, action }, 'admin: purchase changed');
      return sendAdminJson(reply, 200, result.purchase);
    },
  }),
);

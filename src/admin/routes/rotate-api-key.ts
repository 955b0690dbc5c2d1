import { Type } from '@sinclair/typebox';
import { KeyManagedByMarketbobError, rotateAccountKey } from '../../operations/account-keys.js';
import { sendAdminError, sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountParams, QueryFlag } from './admin-params.js';

/** `?now=true`: a leaked key ends at once, whatever keyRotationGraceSeconds says (`keys rotate --now`). */
const RotateQuery = Type.Object({ now: QueryFlag });

/** `POST /accounts/{username}/api-key`: a new key for the account, and until when the old one works. */
export const rotateApiKeyRoute = adminRoute({
  method: 'POST',
  url: '/accounts/:username/api-key',
  schema: { params: AccountParams, querystring: RotateQuery },
  handler: async (request, reply, { store, keys, config }) => {
    const username = request.params.username;
    const now = request.query.now;
    if (now === undefined) return sendAdminError(reply, 'malformed_request', 'now must be true or false');
    const rotated = await rotateAccountKey(store, keys, username, now ? 0 : config.keyRotationGraceSeconds).catch(
      (error: unknown) => {
        if (error instanceof KeyManagedByMarketbobError) return 'managed' as const;
        throw error;
      },
    );
    if (rotated === 'managed') return sendAdminError(reply, 'key_managed_by_marketbob');
    if (rotated === undefined) return sendAdminError(reply, 'account_not_found');
    request.log.info({ reqId: request.id, action: 'rotate key' }, 'admin: account changed');
    return sendAdminJson(reply, 200, {
      username,
      api_key: rotated.key,
      old_key_works_until: rotated.oldKeyWorksUntil?.toISOString() ?? null,
    });
  },
});

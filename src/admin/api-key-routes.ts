import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isKeyScope, keyName } from '../domain/key-scope.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import {
  createNamedKey,
  listNamedKeys,
  NAMED_KEY_PROBLEMS,
  namedKeyBody,
  revokeNamedKey,
} from '../operations/named-keys.js';
import type { Store } from '../store/store.js';
import { sendAdminError, sendAdminJson } from './admin-errors.js';

type Request = FastifyRequest<{ Params: { username: string; id: string } }>;

const bodyOf = (request: FastifyRequest): Record<string, unknown> =>
  request.body !== null && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};

/**
 * `/accounts/{username}/api-keys`: an account's named keys beside its own (`/api-key`). The secret
 * is in the answer of the POST that makes the key only; a DELETE ends the key at once, everywhere.
 */
export function apiKeyRoutes(scope: FastifyInstance, store: Store, keys: KeyMaterial): void {
  const base = '/accounts/:username/api-keys';

  scope.post(base, async (request: Request, reply) => {
    const body = bodyOf(request);
    const name = keyName(body.name);
    if (name === undefined) return sendAdminError(reply, 'malformed_request', NAMED_KEY_PROBLEMS.name);
    if (!isKeyScope(body.scope)) return sendAdminError(reply, 'malformed_request', NAMED_KEY_PROBLEMS.scope);
    const created = await createNamedKey(store, keys, request.params.username, name, body.scope);
    if (!created) return sendAdminError(reply, 'account_not_found');
    request.log.info({ reqId: request.id, action: 'add api key' }, 'admin: account changed');
    return sendAdminJson(reply, 201, { id: created.id, name: created.name, scope: created.scope, key: created.key });
  });

  scope.get(base, async (request: Request, reply) => {
    const found = await listNamedKeys(store, request.params.username);
    if (found === undefined) return sendAdminError(reply, 'account_not_found');
    return sendAdminJson(reply, 200, { api_keys: found.map(namedKeyBody) });
  });

  scope.delete(`${base}/:id`, async (request: Request, reply) => {
    const outcome = await revokeNamedKey(store, request.params.username, request.params.id);
    if (outcome === 'no-account') return sendAdminError(reply, 'account_not_found');
    if (outcome === 'no-key') return sendAdminError(reply, 'api_key_not_found');
    request.log.info({ reqId: request.id, action: 'revoke api key' }, 'admin: account changed');
    return sendAdminJson(reply, 200, { id: request.params.id, revoked: true });
  });
}

import type { KeyScope } from '../domain/key-scope.js';

/**
 * The API paths (relative to a variant's base, as an endpoint names its own) a `validate` key may
 * call: what a seller's shipped software needs at install, and nothing that reads the account or
 * its items. By path, so that an endpoint added later is refused to such a key until it is listed.
 */
export const VALIDATE_SCOPE_PATHS: ReadonlySet<string> = new Set([
  '/api/purchases/validation',
  '/api/purchases/activations',
  '/api/purchases/deactivation',
  // The offline form of validation: a token for the code, made for the software that asks.
  '/api/purchases/license',
]);

/** Whether a key of `scope` may call the endpoint at `path`. */
export function scopeAllows(scope: KeyScope, path: string): boolean {
  return scope === 'full' || VALIDATE_SCOPE_PATHS.has(path);
}

import { purchaseCodeKey, purchaseIsValidFor } from '../domain/purchase-code.js';
import type { VariantRuntime } from '../variants/variant-runtime.js';
import { ApiError, type OrRefusal, unlessRefused } from './api-error.js';
import type { ApiRequest } from './api-request.js';
import type { EndpointContext } from './endpoint.js';
import { after, type MaybePromise } from './maybe-async.js';
import type { CachedAccount, CachedPurchase } from './resource-cache.js';

/**
 * A purchase code checked for a seller as validation checks it, the one refusal every endpoint that
 * takes a code shares (validation in either shape, activations, license tokens): the same
 * `invalidPurchaseCode` for a code that is not valid for them, counted alike, the code's activity noted.
 */

/**
 * A looked-up code answered to the seller `username`, in either shape: the purchase's cached answer
 * when it is valid for them, else `invalidPurchaseCode`; counted in the metrics and, when the code is
 * theirs, in its activity.
 */
export function validationAnswer(
  found: CachedPurchase | undefined,
  codeKey: string | undefined,
  username: string,
  request: ApiRequest,
  variant: VariantRuntime,
  context: EndpointContext,
): OrRefusal<Buffer> {
  const { metrics, activity } = context;
  const owner = found?.owner;
  // The seller's own codes count, valid or not; a code of another seller's (or none) does not.
  if (found !== undefined && owner === username) {
    found.state.activity = activity.validated(owner, codeKey as string, request.ip, found.state.activity);
  }
  if (!found || owner === undefined || !purchaseIsValidFor(found.row, owner, username)) {
    // Refunded and cancelled are told apart for the operator only when the purchase is this seller's.
    const status = found?.row.status;
    const ownInactive = owner === username && status !== 'active';
    metrics.validation(ownInactive ? (status as 'refunded' | 'cancelled') : 'invalid');
    return ApiError.of('invalidPurchaseCode');
  }
  metrics.validation('valid');
  return found.json[variant.index] as Buffer;
}

/** The code (as sent) validated for the account: validation's answer, or its refusal. */
export function validateCode(
  account: CachedAccount,
  code: string,
  request: ApiRequest,
  variant: VariantRuntime,
  context: EndpointContext,
): MaybePromise<OrRefusal<Buffer>> {
  const codeKey = purchaseCodeKey(code);
  return after(codeKey === undefined ? undefined : context.cache.purchase(codeKey, variant), (found) =>
    validationAnswer(found, codeKey, account.username, request, variant, context),
  );
}

/** A code valid for the account: its key, its purchase and its validation answer (the Purchase is inside). */
export interface ValidCode {
  readonly codeKey: string;
  readonly purchase: CachedPurchase;
  readonly answer: Buffer;
}

/** `next` with the code when it is valid for the account, else validation's refusal (see validateCode). */
export function withValidCode<R>(
  account: CachedAccount,
  code: string,
  request: ApiRequest,
  variant: VariantRuntime,
  context: EndpointContext,
  next: (valid: ValidCode) => MaybePromise<OrRefusal<R>>,
): MaybePromise<OrRefusal<R>> {
  const codeKey = purchaseCodeKey(code);
  if (codeKey === undefined) {
    return validationAnswer(undefined, codeKey, account.username, request, variant, context) as ApiError;
  }
  return after(context.cache.purchase(codeKey, variant), (found) =>
    unlessRefused(validationAnswer(found, codeKey, account.username, request, variant, context), (answer) =>
      next({ codeKey, purchase: found as CachedPurchase, answer }),
    ),
  );
}

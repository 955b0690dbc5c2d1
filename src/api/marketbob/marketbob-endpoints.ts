import type { VariantRuntime } from '../../variants/variant-runtime.js';
import { ApiError } from '../api-error.js';
import type { Endpoint } from '../endpoint.js';
import { endpoints as contractEndpoints } from '../routes/index.js';
import { marketbobAccountDetails } from './marketbob-account-details.js';
import { behindApiSwitch } from './marketbob-auth.js';
import { marketbobItemsAll } from './marketbob-items-all.js';
import { marketbobItemsItem } from './marketbob-items-item.js';
import { marketbobPurchaseValidation } from './marketbob-purchase-validation.js';

/** MarketBob's four endpoints in its own shape, each behind its `actions.api` switch. */
export const marketbobEndpoints: readonly Endpoint[] = [
  marketbobAccountDetails,
  marketbobItemsAll,
  marketbobItemsItem,
  marketbobPurchaseValidation,
].map(behindApiSwitch);

/**
 * The endpoints registered under one variant base, chosen once when the routes are built: the
 * contract's where every variant of the base answers in the contract's shape (nothing more is
 * done per request), MarketBob's where every one answers in MarketBob's (its API has no activity
 * endpoints: they answer 404 there), and, only where two hosts share a base in different shapes,
 * endpoints that pick by the request's variant.
 */
export function endpointsUnder(prefix: string, variants: readonly VariantRuntime[]): readonly Endpoint[] {
  const shapes = new Set(variants.filter((v) => v.config.prefix === prefix).map((v) => v.config.shape));
  if (!shapes.has('marketbob')) return contractEndpoints;
  if (!shapes.has('contract')) return marketbobEndpoints;
  return contractEndpoints.map((contract): Endpoint => {
    const marketbob = marketbobEndpoints.find((endpoint) => endpoint.path === contract.path);
    return {
      method: contract.method,
      path: contract.path,
      handle(request, variant, context) {
        if (variant.config.shape === 'contract') return contract.handle(request, variant, context);
        return marketbob ? marketbob.handle(request, variant, context) : ApiError.of('notFound');
      },
    };
  });
}

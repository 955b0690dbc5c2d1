import type { VariantRuntime } from '../../variants/variant-runtime.js';
import { ApiError } from '../api-error.js';
import type { ContractEndpoint, Endpoint, MarketbobEndpoint } from '../endpoint.js';
import { marketbobAccountDetails } from './marketbob-account-details.js';
import { behindApiSwitch } from './marketbob-auth.js';
import { marketbobItemsAll } from './marketbob-items-all.js';
import { marketbobItemsItem } from './marketbob-items-item.js';
import { marketbobPurchaseValidation } from './marketbob-purchase-validation.js';

/**
 * MarketBob's four endpoints in its own shape, each behind its `actions.api` switch, in the
 * contract's order: what a variant in MarketBob's shape registers and documents.
 */
export const marketbobEndpoints: readonly MarketbobEndpoint[] = [
  marketbobAccountDetails,
  marketbobItemsAll,
  marketbobItemsItem,
  marketbobPurchaseValidation,
].map(behindApiSwitch);

/**
 * The endpoints registered under one variant base, chosen once when the routes are built: the
 * contract's (`contract`, see contractEndpoints) where every variant of the base answers in the
 * contract's shape (nothing more is done per request), MarketBob's where every one answers in
 * MarketBob's (its API has no activity endpoints: they answer 404 there), and, only where two
 * hosts share a base in different shapes, endpoints that pick by the request's variant.
 */
export function endpointsUnder(
  prefix: string,
  variants: readonly VariantRuntime[],
  contract: readonly ContractEndpoint[],
): readonly Endpoint[] {
  const shapes = new Set(variants.filter((v) => v.config.prefix === prefix).map((v) => v.config.shape));
  if (!shapes.has('marketbob')) return contract;
  if (!shapes.has('contract')) return marketbobEndpoints;
  return contract.map((ours): Endpoint => {
    const marketbob = marketbobEndpoints.find((endpoint) => endpoint.path === ours.path);
    return {
      method: ours.method,
      path: ours.path,
      contract: ours.contract,
      handle(request, variant, context) {
        if (variant.config.shape === 'contract') return ours.handle(request, variant, context);
        return marketbob ? marketbob.handle(request, variant, context) : ApiError.of('notFound');
      },
    };
  });
}

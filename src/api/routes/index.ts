import type { ContractEndpoint, EndpointSettings } from '../endpoint.js';
import { accountDetails } from './account-details.js';
import { itemsAll } from './items-all.js';
import { itemsItem } from './items-item.js';
import { purchaseActivation, purchaseDeactivation } from './purchase-activations.js';
import { purchaseActivity } from './purchase-activity.js';
import { createPurchaseActivityTop } from './purchase-activity-top.js';
import { purchaseLicense } from './purchase-license.js';
import { purchaseValidation } from './purchase-validation.js';

/**
 * The API's endpoints in the contract's shape (SPEC 2, purchase-code activity and
 * activations), in the documents' order: the one list the routes are registered from (once per
 * variant base), the OpenAPI documents are written from, and the tests check answers against.
 * Built from the config, whose bounds some contracts state.
 */
export function contractEndpoints(settings: EndpointSettings): readonly ContractEndpoint[] {
  return [
    accountDetails,
    itemsAll,
    itemsItem,
    purchaseValidation,
    purchaseActivity,
    createPurchaseActivityTop(settings),
    purchaseActivation,
    purchaseDeactivation,
    purchaseLicense,
  ];
}

import type { Endpoint } from '../endpoint.js';
import { accountDetails } from './account-details.js';
import { itemsAll } from './items-all.js';
import { itemsItem } from './items-item.js';
import { purchaseActivation, purchaseDeactivation } from './purchase-activations.js';
import { purchaseActivity } from './purchase-activity.js';
import { purchaseActivityTop } from './purchase-activity-top.js';
import { purchaseLicense } from './purchase-license.js';
import { purchaseValidation } from './purchase-validation.js';

/** The API's endpoints (SPEC 2, purchase-code activity: issue 24, and activations), each registered once per variant base. */
export const endpoints: readonly Endpoint[] = [
  accountDetails,
  itemsAll,
  itemsItem,
  purchaseValidation,
  purchaseActivity,
  purchaseActivityTop,
  purchaseActivation,
  purchaseDeactivation,
  purchaseLicense,
];

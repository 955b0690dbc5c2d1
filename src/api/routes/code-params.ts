import type { EndpointParam } from '../../schemas/endpoint-contract.js';

/** `purchase_code`, as the endpoints that take a code read it (a POST's from the query string or its body). */
export const PURCHASE_CODE_PARAM: EndpointParam = {
  name: 'purchase_code',
  description: "The buyer's purchase code",
  sources: ['query', 'body'],
};

/** An activation endpoint's `instance` (see instanceParam). */
export const INSTANCE_PARAM: EndpointParam = {
  name: 'instance',
  description:
    'What your software names this install by (a domain, a machine id): 1 to 255 characters, no control characters',
  sources: ['query', 'body'],
};

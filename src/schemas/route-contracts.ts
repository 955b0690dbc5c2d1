import { type TProperties, Type } from '@sinclair/typebox';
import { VALIDATE_SCOPE_PATHS } from '../keys/key-scopes.js';
import type { ErrorKind } from '../variants/error-kinds.js';
import {
  Account,
  Activation,
  ActivationCounts,
  ActiveCode,
  Item,
  License,
  Purchase,
  PurchaseActivity,
} from './resource-schemas.js';

/** Where a parameter may be sent (docs/api.md 2.1); the key may also come as a header or a bearer token. */
export type ParamSource = 'query' | 'body';

/** A parameter an endpoint reads besides the key. */
export interface RouteParam {
  readonly name: string;
  readonly description: string;
  readonly sources: readonly ParamSource[];
  readonly pattern?: string;
  /** False for a parameter that may be left out (its default is in the description). */
  readonly required?: false;
  /** A whole number's bounds, for a parameter that is one (its 400 names them). */
  readonly range?: { readonly min: number; readonly max: number };
  /**
   * A whole number, documented as an integer (a query string's digits; `pattern` says what text the
   * API reads as one). A parameter with a `range` is one too.
   */
  readonly integer?: true;
}

/**
 * What one endpoint answers, by the contract (docs/api.md, section 2): its success envelope's members after
 * `status`, its parameters, and the error kinds it may answer with besides those every route has.
 */
export interface RouteContract {
  readonly method: 'GET' | 'POST';
  /** Relative to a variant's base, as in src/api/routes. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly params: readonly RouteParam[];
  /** The success envelope's members after `status`, in order. */
  readonly success: TProperties;
  /** The 404s this endpoint answers (an unknown path's 404 aside). */
  readonly notFound: readonly ErrorKind[];
  /** The statuses its success envelope comes with; [200] when left out. */
  readonly successStatuses?: readonly number[];
  /** The 409s this endpoint answers, if any. */
  readonly conflict?: readonly ErrorKind[];
}

/** An activation endpoint's `instance`. */
const INSTANCE_PARAM: RouteParam = {
  name: 'instance',
  description:
    'What your software names this install by (a domain, a machine id): 1 to 255 characters, no control characters',
  sources: ['query', 'body'],
};

export const routeContracts: readonly RouteContract[] = [
  {
    method: 'GET',
    path: '/api/account/details',
    operationId: 'accountDetails',
    summary: 'Account details',
    description: 'The account that owns the API key.',
    params: [],
    success: { data: Account },
    notFound: [],
  },
  {
    method: 'GET',
    path: '/api/items/all',
    operationId: 'itemsAll',
    summary: 'All items',
    description: "Every approved item of the key's account, newest id first; a 404 when there are none.",
    params: [],
    success: { items: Type.Array(Item, { minItems: 1 }) },
    notFound: ['noItems'],
  },
  {
    method: 'GET',
    path: '/api/items/item',
    operationId: 'itemsItem',
    summary: 'One item',
    description: "One approved item of the key's account; another seller's item is a 404 like a missing one.",
    params: [
      {
        name: 'item_id',
        description: 'A positive integer: digits only, at most 15 (007 is item 7)',
        sources: ['query'],
        pattern: '^\\s*\\d{1,15}\\s*$',
        integer: true,
      },
    ],
    success: { item: Item },
    notFound: ['itemNotFound'],
  },
  {
    method: 'POST',
    path: '/api/purchases/validation',
    operationId: 'purchaseValidation',
    summary: 'Validate a purchase code',
    description:
      "The purchase, when the code (trimmed, any letter case) is active and its item belongs to the key's account; " +
      'any other code is a 404.',
    params: [
      {
        name: 'purchase_code',
        description: "The buyer's purchase code",
        sources: ['query', 'body'],
      },
      {
        ...INSTANCE_PARAM,
        description:
          "Optional: an install to ask about. Given, the answer adds `activation` (the instance's activation, or null)",
        required: false,
      },
    ],
    success: {
      data: Type.Object(
        {
          purchase: Purchase,
          activation: Type.Optional(
            Type.Union([Activation, Type.Null()], {
              description: "Only when `instance` was given: the instance's activation of the code, or null",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    },
    notFound: ['invalidPurchaseCode'],
  },
  {
    method: 'GET',
    path: '/api/purchases/activity',
    operationId: 'purchaseActivity',
    summary: 'How a purchase code is used',
    description:
      "Validations and distinct client networks of one of the key's account's codes (valid, refunded or cancelled), " +
      'over the retained days and per day. Any other code answers exactly what validation answers for it (404); ' +
      'a code never validated answers zeros and nulls. Counts are written every few seconds.',
    params: [
      {
        name: 'purchase_code',
        description: "The buyer's purchase code",
        sources: ['query'],
      },
    ],
    success: { data: Type.Object({ activity: PurchaseActivity }, { additionalProperties: false }) },
    notFound: ['invalidPurchaseCode'],
  },
  {
    method: 'GET',
    path: '/api/purchases/activity/top',
    operationId: 'purchaseActivityTop',
    summary: 'Codes used from the most networks',
    description:
      "The key's account's codes seen from the most distinct client networks in the last `days` days, most first " +
      '(then most validations): a code bought once and validated from many networks has usually leaked.',
    params: [
      {
        name: 'days',
        description: 'The window in days, today (UTC) included; 30 when left out',
        sources: ['query'],
        pattern: '^\\s*\\d{1,9}\\s*$',
        required: false,
        range: { min: 1, max: 90 },
      },
      {
        name: 'limit',
        description: 'How many codes at most; 50 when left out',
        sources: ['query'],
        pattern: '^\\s*\\d{1,9}\\s*$',
        required: false,
        range: { min: 1, max: 100 },
      },
    ],
    success: {
      data: Type.Object(
        {
          days: Type.Integer({ minimum: 1, description: 'The window the list covers' }),
          codes: Type.Array(ActiveCode),
        },
        { additionalProperties: false },
      ),
    },
    notFound: [],
  },
  {
    method: 'POST',
    path: '/api/purchases/activations',
    operationId: 'purchaseActivation',
    summary: 'Activate an install',
    description:
      'Activates `instance` on a valid code: 201 with the new activation, 200 with the one the instance has already, ' +
      "409 when the code holds as many instances as its item's activation limit allows. Any other code answers " +
      'exactly what validation answers for it.',
    params: [
      { name: 'purchase_code', description: "The buyer's purchase code", sources: ['query', 'body'] },
      INSTANCE_PARAM,
    ],
    success: {
      data: Type.Object(
        { activation: Activation, activations: ActivationCounts, purchase: Purchase },
        { additionalProperties: false },
      ),
    },
    successStatuses: [201, 200],
    notFound: ['invalidPurchaseCode'],
    conflict: ['activationLimit'],
  },
  {
    method: 'POST',
    path: '/api/purchases/deactivation',
    operationId: 'purchaseDeactivation',
    summary: 'Release an install',
    description:
      "Releases `instance` from a valid code, freeing its place: 200 with the code's count, 404 when the instance " +
      'holds no activation of the code. Any other code answers exactly what validation answers for it.',
    params: [
      { name: 'purchase_code', description: "The buyer's purchase code", sources: ['query', 'body'] },
      INSTANCE_PARAM,
    ],
    success: { data: Type.Object({ activations: ActivationCounts }, { additionalProperties: false }) },
    notFound: ['invalidPurchaseCode', 'activationNotFound'],
  },
  {
    method: 'POST',
    path: '/api/purchases/license',
    operationId: 'purchaseLicense',
    summary: 'Offline license token',
    description:
      'A license token for a valid purchase code: a JWS (EdDSA, the keys at `{base}/.well-known/jwks.json`, `kid` in ' +
      'its header) whose claims are `iss` (the base URL), `iat`, `exp`, `purchase_code`, `item_id`, `license_type` ' +
      "and `instance` when given. The seller's software checks it offline until `exp`. A code that is not valid " +
      'answers exactly what validation answers for it.',
    params: [
      {
        name: 'purchase_code',
        description: "The buyer's purchase code",
        sources: ['query', 'body'],
      },
      {
        name: 'instance',
        description: 'The installation the token is for (1 to 255 characters), carried in its `instance` claim',
        sources: ['query', 'body'],
        required: false,
      },
    ],
    success: { data: License },
    notFound: ['invalidPurchaseCode'],
  },
];

/** The error kinds a route may answer with, by status; POST routes read bodies and add 413 and 415. */
export function routeErrorKinds(route: RouteContract): ReadonlyMap<number, readonly ErrorKind[]> {
  const kinds = new Map<number, readonly ErrorKind[]>([
    [400, ['badParameter', 'malformedRequest']],
    [401, ['invalidRequest']],
    // A `validate` key may call only what src/keys/key-scopes.ts lists.
    ...(VALIDATE_SCOPE_PATHS.has(route.path) ? [] : [[403, ['keyScope']] as const]),
    [404, [...route.notFound, 'notFound']],
    [405, ['methodNotAllowed']],
    ...(route.conflict === undefined ? [] : [[409, route.conflict] as const]),
    // Headers or a body that do not arrive in time (config server.requestTimeoutSeconds).
    [408, ['requestTimeout']],
  ]);
  if (route.method === 'POST') {
    kinds.set(413, ['bodyTooLarge']);
    kinds.set(415, ['unsupportedContentType']);
  }
  kinds.set(429, ['tooManyRequests']);
  kinds.set(500, ['internal']);
  kinds.set(503, ['serviceUnavailable']);
  return kinds;
}

/** A path no route serves: 404, or 405 for a route's path with another method. */
export const UNROUTED_ERROR_KINDS: ReadonlyMap<number, readonly ErrorKind[]> = new Map([
  [404, ['notFound']],
  [405, ['methodNotAllowed']],
]);

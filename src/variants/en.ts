import type { VariantTexts } from './variant-texts.js';

export const en: VariantTexts = {
  lang: 'en',
  statusOk: 'success',
  statusError: 'error',
  messages: {
    badParameter: 'A parameter is missing or malformed',
    malformedRequest: 'The request is malformed',
    invalidRequest: 'Invalid request',
    keyScope: 'This API key may not call this endpoint',
    noItems: 'No items found',
    itemNotFound: 'Item Not Found',
    invalidPurchaseCode: 'Invalid purchase code',
    notFound: 'Not found',
    activationNotFound: 'Activation not found',
    activationLimit: 'Activation limit reached',
    methodNotAllowed: 'Method not allowed',
    requestTimeout: 'Request timeout',
    bodyTooLarge: 'Request body too large',
    unsupportedContentType: 'Unsupported content type',
    tooManyRequests: 'Too many requests',
    serviceUnavailable: 'Service unavailable',
    internal: 'Internal error',
  },
  parameter: {
    missing: (name) => `The ${name} parameter is required`,
    malformed: (name, expectation) => `The ${name} parameter must be ${expectation}`,
    conflicting: (name) => `The ${name} parameter was sent more than once with different values`,
  },
  expectations: {
    positiveInteger: 'a positive integer',
    instance: '1 to 255 characters with no control characters',
    text: 'a single text value',
    wholeNumber: (min, max) => `a whole number from ${min} to ${max}`,
    shortText: (max) => `a text of at most ${max} characters`,
    nonce: 'at most 255 visible ASCII characters, without quotes or backslashes',
  },
};

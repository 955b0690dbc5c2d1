import { type Lang, languages } from './languages.js';
import { marketbobMessages } from './marketbob-texts.js';
import type { VariantTexts } from './variant-texts.js';

/**
 * What a variant in MarketBob's shape says: MarketBob's status words and messages where its API
 * has its own (marketbob-texts.ts), the language's own texts for the rest (a spent budget, a body
 * too large: answers MarketBob's API has no word for). A missing parameter is named as MarketBob's
 * validator names it; an `item_id` that is no integer too.
 */
export function marketbobVariantTexts(lang: Lang): VariantTexts {
  const base = languages[lang];
  const said = marketbobMessages(lang);
  const missing: Readonly<Record<string, string>> = {
    api_key: said.apiKeyRequired,
    item_id: said.itemIdRequired,
    purchase_code: said.purchaseCodeRequired,
  };
  return {
    ...base,
    statusOk: said.statusOk,
    statusError: said.statusError,
    messages: {
      ...base.messages,
      invalidRequest: said.invalidRequest,
      noItems: said.noItemsFound,
      itemNotFound: said.itemNotFound,
      invalidPurchaseCode: said.invalidPurchaseCode,
      notFound: said.notFound,
    },
    parameter: {
      ...base.parameter,
      missing: (name) => missing[name] ?? base.parameter.missing(name),
      malformed: (name, expectation) =>
        name === 'item_id' ? said.itemIdNotInteger : base.parameter.malformed(name, expectation),
    },
  };
}

import type { Lang } from './languages.js';

/**
 * What a variant in MarketBob's own shape says where MarketBob's API says something of its own.
 * The English texts are the defaults of MarketBob's translation table, word for word: sellers'
 * software may compare them. Its status words (`success`, `error`) are not translated there, so
 * they are not here either.
 */
export interface MarketbobMessages {
  readonly statusOk: 'success';
  readonly statusError: 'error';
  readonly apiKeyRequired: string;
  /** Account details: an unknown key, a banned user, an incomplete profile (401). */
  readonly invalidRequest: string;
  readonly noItemsFound: string;
  readonly itemIdRequired: string;
  readonly itemIdNotInteger: string;
  readonly itemNotFound: string;
  readonly purchaseCodeRequired: string;
  readonly invalidPurchaseCode: string;
  /** Laravel's own 404: MarketBob's API switched off (its `actions.api` setting). */
  readonly notFound: string;
}

const en: MarketbobMessages = {
  statusOk: 'success',
  statusError: 'error',
  apiKeyRequired: 'The api key field is required.',
  invalidRequest: 'Invalid request',
  noItemsFound: 'No items found',
  itemIdRequired: 'The item id field is required.',
  itemIdNotInteger: 'The item id field must be an integer.',
  itemNotFound: 'Item Not Found',
  purchaseCodeRequired: 'The purchase code field is required.',
  invalidPurchaseCode: 'Invalid purchase code',
  notFound: 'Not Found',
};

const pt: MarketbobMessages = {
  statusOk: 'success',
  statusError: 'error',
  apiKeyRequired: 'O campo api key é obrigatório.',
  invalidRequest: 'Requisição inválida',
  noItemsFound: 'Nenhum item encontrado',
  itemIdRequired: 'O campo item id é obrigatório.',
  itemIdNotInteger: 'O campo item id deve ser um número inteiro.',
  itemNotFound: 'Item não encontrado',
  purchaseCodeRequired: 'O campo purchase code é obrigatório.',
  invalidPurchaseCode: 'Código de compra inválido',
  notFound: 'Não encontrado',
};

export function marketbobMessages(lang: Lang): MarketbobMessages {
  return lang === 'pt' ? pt : en;
}

// Generated from the API's schemas (src/schemas) by `npm run sdk`: do not edit.
/** "No items" in every language: items() answers [] for it. */
export const NO_ITEMS_MESSAGES = ['No items found', 'Nenhum Item Cncontrado'];
/** "Item not found" in every language: item() answers null for it. */
export const ITEM_NOT_FOUND_MESSAGES = ['Item Not Found', 'Item Não Encontrado'];
/** "Invalid purchase code" in every language: validatePurchase() and purchaseActivity() answer null for it. */
export const INVALID_PURCHASE_CODE_MESSAGES = ['Invalid purchase code', 'Código de Compra Inválido'];
/** "Activation not found" in every language: deactivate() answers null for it. */
export const ACTIVATION_NOT_FOUND_MESSAGES = ['Activation not found', 'Ativação não encontrada'];
/** MarketBob's "No items found" in every language: a `marketbob` client's items() answers [] for it. */
export const MARKETBOB_NO_ITEMS_MESSAGES = ['No items found', 'Nenhum item encontrado'];
/** MarketBob's "Item Not Found" in every language: a `marketbob` client's item() answers null for it. */
export const MARKETBOB_ITEM_NOT_FOUND_MESSAGES = ['Item Not Found', 'Item não encontrado'];
/** MarketBob's "Invalid purchase code" in every language: a `marketbob` client's validatePurchase() answers null for it. */
export const MARKETBOB_INVALID_PURCHASE_CODE_MESSAGES = [
    'Invalid purchase code',
    'Código de compra inválido',
];

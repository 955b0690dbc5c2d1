"use strict";
// Generated from the API's schemas (src/schemas) by `npm run sdk`: do not edit.
Object.defineProperty(exports, "__esModule", { value: true });
exports.MARKETBOB_INVALID_PURCHASE_CODE_MESSAGES = exports.MARKETBOB_ITEM_NOT_FOUND_MESSAGES = exports.MARKETBOB_NO_ITEMS_MESSAGES = exports.ACTIVATION_NOT_FOUND_MESSAGES = exports.INVALID_PURCHASE_CODE_MESSAGES = exports.ITEM_NOT_FOUND_MESSAGES = exports.NO_ITEMS_MESSAGES = void 0;
/** "No items" in every language: items() answers [] for it. */
exports.NO_ITEMS_MESSAGES = ['No items found', 'Nenhum Item Cncontrado'];
/** "Item not found" in every language: item() answers null for it. */
exports.ITEM_NOT_FOUND_MESSAGES = ['Item Not Found', 'Item Não Encontrado'];
/** "Invalid purchase code" in every language: validatePurchase() and purchaseActivity() answer null for it. */
exports.INVALID_PURCHASE_CODE_MESSAGES = ['Invalid purchase code', 'Código de Compra Inválido'];
/** "Activation not found" in every language: deactivate() answers null for it. */
exports.ACTIVATION_NOT_FOUND_MESSAGES = ['Activation not found', 'Ativação não encontrada'];
/** MarketBob's "No items found" in every language: a `marketbob` client's items() answers [] for it. */
exports.MARKETBOB_NO_ITEMS_MESSAGES = ['No items found', 'Nenhum item encontrado'];
/** MarketBob's "Item Not Found" in every language: a `marketbob` client's item() answers null for it. */
exports.MARKETBOB_ITEM_NOT_FOUND_MESSAGES = ['Item Not Found', 'Item não encontrado'];
/** MarketBob's "Invalid purchase code" in every language: a `marketbob` client's validatePurchase() answers null for it. */
exports.MARKETBOB_INVALID_PURCHASE_CODE_MESSAGES = [
    'Invalid purchase code',
    'Código de compra inválido',
];

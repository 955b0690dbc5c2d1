import type { VariantTexts } from './variant-texts.js';

export const pt: VariantTexts = {
  lang: 'pt',
  statusOk: 'Sucesso',
  statusError: 'Erro',
  messages: {
    badParameter: 'Um parâmetro está ausente ou malformado',
    malformedRequest: 'A solicitação está malformada',
    invalidRequest: 'Solicitação Inválida',
    keyScope: 'Esta chave de API não pode chamar este endpoint',
    // Spelled as the marketplace published it; clients match on this text.
    noItems: 'Nenhum Item Cncontrado',
    itemNotFound: 'Item Não Encontrado',
    invalidPurchaseCode: 'Código de Compra Inválido',
    notFound: 'Não encontrado',
    activationNotFound: 'Ativação não encontrada',
    activationLimit: 'Limite de ativações atingido',
    methodNotAllowed: 'Método não permitido',
    requestTimeout: 'Tempo esgotado para a solicitação',
    bodyTooLarge: 'Corpo da solicitação muito grande',
    unsupportedContentType: 'Tipo de conteúdo não suportado',
    tooManyRequests: 'Muitas solicitações',
    serviceUnavailable: 'Serviço indisponível',
    internal: 'Erro interno',
  },
  parameter: {
    missing: (name) => `O parâmetro ${name} é obrigatório`,
    malformed: (name, expectation) => `O parâmetro ${name} deve ser ${expectation}`,
    conflicting: (name) => `O parâmetro ${name} foi enviado mais de uma vez com valores diferentes`,
  },
  expectations: {
    positiveInteger: 'um número inteiro positivo',
    instance: 'de 1 a 255 caracteres, sem caracteres de controle',
    text: 'um único valor de texto',
    wholeNumber: (min, max) => `um número inteiro de ${min} a ${max}`,
    shortText: (max) => `um texto de no máximo ${max} caracteres`,
    nonce: 'no máximo 255 caracteres ASCII visíveis, sem aspas nem barras invertidas',
  },
};

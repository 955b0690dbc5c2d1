import type { PublicJwk } from '../signing/signing-keys.js';
import type { Lang } from '../variants/languages.js';

/** The keys as a list the introduction shows: `kid` then the key (`x`). */
const keyList = (keys: readonly PublicJwk[]) => keys.map((key) => `\n- \`${key.kid}\`: \`${key.x}\``).join('');

/**
 * What the OpenAPI document and the docs page say in each variant's language. The document is
 * written in English (src/schemas, openapi-document.ts); a language other than English gives the
 * translation of every English text it publishes, and a text without one stops the document from
 * being built (so a new English sentence cannot slip into the Portuguese document unseen: the
 * openapi tests build both).
 */
export interface DocsLanguage {
  /** The page's `<html lang>`. */
  readonly htmlLang: string;
  /** The docs page's title: the product's name, not the renderer's. */
  readonly pageTitle: string;
  /** The document's `info.description`. */
  readonly infoDescription: (facts: InfoFacts) => string;
  /** The `info.description` of a variant in MarketBob's shape. */
  readonly marketbobInfoDescription: (facts: MarketbobInfoFacts) => string;
  /**
   * The document's paragraph on signed answers and license tokens, with the public keys when the
   * server publishing the document gives them (the committed documents name none: each deployment has its own).
   */
  readonly signingDescription: (prefix: string, keys: readonly PublicJwk[] | undefined) => string;
  /** English text of the document -> this language; absent for English itself. */
  readonly translations?: Readonly<Record<string, string>>;
  /** Swagger UI's own English labels -> this language (Swagger UI has no translations of its own). */
  readonly uiLabels: Readonly<Record<string, string>>;
}

/** What the document's introduction states about a variant. */
export interface InfoFacts {
  readonly lang: string;
  readonly statusOk: string;
  readonly statusError: string;
  readonly currency: string;
  readonly notFound: string;
}

/** What the introduction of a variant in MarketBob's shape states about it. */
export interface MarketbobInfoFacts {
  readonly lang: string;
  readonly statusOk: string;
  readonly statusError: string;
  readonly currency: string;
  /** The message of a missing key. */
  readonly missingKey: string;
}

const en: DocsLanguage = {
  htmlLang: 'en',
  pageTitle: 'marketplace-api: API reference',
  infoDescription: (facts) =>
    `The seller API of the marketplace, variant \`${facts.lang}\`: success answers carry ` +
    `\`"status": "${facts.statusOk}"\`, errors \`{"status": "${facts.statusError}", "msg": ...}\`, ` +
    `money in ${facts.currency}. Every answer is JSON with Cache-Control: no-store and no CORS headers: ` +
    'the key must never live in a browser. A trailing slash on a path is accepted. ' +
    'Every GET endpoint also answers HEAD, with the same status and headers and no body. ' +
    `A path no endpoint serves answers 404 ${JSON.stringify(facts.notFound)}.\n\n` +
    'To try an endpoint here: **Authorize** with your API key (X-Api-Key), then **Try it out** and **Execute**.',
  signingDescription: (prefix, keys) =>
    'Every answer, errors included, is signed (RFC 9421 HTTP Message Signatures, Ed25519): `Content-Digest` ' +
    "holds the body's SHA-256, `Signature-Input` says what is covered (the status, the digest, the request's " +
    'method, path and query, and the `Signature-Nonce` header when sent, echoed as `nonce`), `Signature` the ' +
    `signature. The public keys are at \`${prefix}/.well-known/jwks.json\` (a JWK Set, kid = the key's RFC 7638 ` +
    'thumbprint); the license tokens of `/api/purchases/license` are signed with the same keys.' +
    (keys === undefined ? '' : `\n\nPublished now:${keyList(keys)}`),
  marketbobInfoDescription: (facts) =>
    `The seller API of the marketplace, variant \`${facts.lang}\`, answering as MarketBob's own API does: ` +
    `success answers carry \`"status": "${facts.statusOk}"\`, errors \`{"status": "${facts.statusError}", "msg": ...}\`; ` +
    `money in ${facts.currency} as unrounded numbers; dates in UTC with six decimals; a field that is not set is null. ` +
    'Every parameter, the key (api_key) among them, comes in the query string or in the body (JSON or a form); ' +
    `each is trimmed, and a blank one counts as missing: without a key, 400 ${JSON.stringify(facts.missingKey)}.\n\n` +
    'To try an endpoint here: **Authorize** with your API key (api_key), then **Try it out** and **Execute**.',
  uiLabels: {},
};

const pt: DocsLanguage = {
  htmlLang: 'pt-BR',
  pageTitle: 'marketplace-api: referência da API',
  infoDescription: (facts) =>
    `A API dos vendedores do marketplace, variante \`${facts.lang}\`: respostas de sucesso trazem ` +
    `\`"status": "${facts.statusOk}"\`, erros \`{"status": "${facts.statusError}", "msg": ...}\`, ` +
    `valores em ${facts.currency}. Toda resposta é JSON com Cache-Control: no-store e sem cabeçalhos CORS: ` +
    'a chave nunca deve ficar num navegador. Uma barra no fim do caminho é aceita. ' +
    'Todo endpoint GET também responde a HEAD, com o mesmo status e os mesmos cabeçalhos, sem corpo. ' +
    `Um caminho que nenhum endpoint atende responde 404 ${JSON.stringify(facts.notFound)}.\n\n` +
    'Para experimentar um endpoint aqui: **Autorizar** com a sua chave de API (X-Api-Key), ' +
    'depois **Experimentar** e **Executar**.',
  signingDescription: (prefix, keys) =>
    'Toda resposta, inclusive de erro, é assinada (RFC 9421 HTTP Message Signatures, Ed25519): `Content-Digest` ' +
    'traz o SHA-256 do corpo, `Signature-Input` diz o que é coberto (o status, o digest, o método, o caminho e a ' +
    'query da solicitação, e o cabeçalho `Signature-Nonce` quando enviado, repetido como `nonce`), `Signature` a ' +
    `assinatura. As chaves públicas estão em \`${prefix}/.well-known/jwks.json\` (um JWK Set, kid = o thumbprint ` +
    'RFC 7638 da chave); os tokens de licença de `/api/purchases/license` são assinados com as mesmas chaves.' +
    (keys === undefined ? '' : `\n\nPublicadas agora:${keyList(keys)}`),
  marketbobInfoDescription: (facts) =>
    `A API dos vendedores do marketplace, variante \`${facts.lang}\`, que responde como a própria API do MarketBob: ` +
    `respostas de sucesso trazem \`"status": "${facts.statusOk}"\`, erros \`{"status": "${facts.statusError}", "msg": ...}\`; ` +
    `valores em ${facts.currency} como números sem arredondamento; datas em UTC com seis casas decimais; um campo sem valor é null. ` +
    'Todo parâmetro, inclusive a chave (api_key), vem na query string ou no corpo (JSON ou formulário); ' +
    `cada um perde os espaços nas pontas, e um vazio conta como ausente: sem chave, 400 ${JSON.stringify(facts.missingKey)}.\n\n` +
    'Para experimentar um endpoint aqui: **Autorizar** com a sua chave de API (api_key), ' +
    'depois **Experimentar** e **Executar**.',
  translations: {
    // Endpoints (their contracts in src/api/routes/)
    'Account details': 'Detalhes da conta',
    'The account that owns the API key.': 'A conta dona da chave de API.',
    'All items': 'Todos os itens',
    "Every approved item of the key's account, newest id first; a 404 when there are none.":
      'Todos os itens aprovados da conta da chave, do id mais novo ao mais antigo; um 404 quando não há nenhum.',
    'One item': 'Um item',
    "One approved item of the key's account; another seller's item is a 404 like a missing one.":
      'Um item aprovado da conta da chave; o item de outro vendedor é um 404, como um que não existe.',
    'A positive integer: digits only, at most 15 (007 is item 7)':
      'Um número inteiro positivo: só dígitos, no máximo 15 (007 é o item 7)',
    'Validate a purchase code': 'Validar um código de compra',
    "The purchase, when the code (trimmed, any letter case) is active and its item belongs to the key's account; any other code is a 404.":
      'A compra, quando o código (sem espaços nas pontas, maiúsculas ou minúsculas) está ativo e o seu item ' +
      'pertence à conta da chave; qualquer outro código é um 404.',
    "The buyer's purchase code": 'O código de compra do comprador',
    'How a purchase code is used': 'Como um código de compra é usado',
    "Validations and distinct client networks of one of the key's account's codes (valid, refunded or cancelled), over the retained days and per day. Any other code answers exactly what validation answers for it (404); a code never validated answers zeros and nulls. Counts are written every few seconds. Each call takes one from the key's report budget, whichever client calls: past it, 429.":
      'Validações e redes de clientes distintas de um código da conta da chave (válido, reembolsado ou cancelado), ' +
      'nos dias guardados e por dia. Qualquer outro código responde exatamente o que a validação responde para ele (404); ' +
      'um código nunca validado responde zeros e nulls. As contagens são gravadas a cada poucos segundos.' +
      ' Cada chamada gasta um do limite de relatórios da chave, seja qual for o cliente: além dele, 429.',
    'Codes used from the most networks': 'Códigos usados a partir de mais redes',
    "The key's account's codes seen from the most distinct client networks in the last `days` days, most first (then most validations): a code bought once and validated from many networks has usually leaked. Each call takes one from the key's report budget, whichever client calls: past it, 429.":
      'Os códigos da conta da chave vistos a partir de mais redes de clientes distintas nos últimos `days` dias, ' +
      'do maior para o menor (depois, mais validações): um código comprado uma vez e validado a partir de muitas ' +
      'redes geralmente vazou.' +
      ' Cada chamada gasta um do limite de relatórios da chave, seja qual for o cliente: além dele, 429.',
    'The window in days, today (UTC) included; 30 when left out':
      'A janela em dias, hoje (UTC) incluído; 30 quando omitido',
    'How many codes at most; 50 when left out': 'Quantos códigos no máximo; 50 quando omitido',
    'The window the list covers': 'A janela que a lista cobre',
    'What your software names this install by (a domain, a machine id): 1 to 255 characters, no control characters':
      'Como o seu software chama esta instalação (um domínio, um id de máquina): de 1 a 255 caracteres, ' +
      'sem caracteres de controle',
    "Optional: an install to ask about. Given, the answer adds `activation` (the instance's activation, or null)":
      'Opcional: uma instalação a consultar. Quando dada, a resposta inclui `activation` (a ativação da instância, ou null)',
    "Only when `instance` was given: the instance's activation of the code, or null":
      'Só quando `instance` foi dado: a ativação da instância neste código, ou null',
    'Activate an install': 'Ativar uma instalação',
    "Activates `instance` on a valid code: 201 with the new activation, 200 with the one the instance has already, 409 when the code holds as many instances as its item's activation limit allows. Any other code answers exactly what validation answers for it.":
      'Ativa `instance` num código válido: 201 com a nova ativação, 200 com a que a instância já tem, 409 quando o ' +
      'código já tem tantas instâncias quanto o limite de ativações do seu item permite. Qualquer outro código ' +
      'responde exatamente o que a validação responde para ele.',
    'Release an install': 'Liberar uma instalação',
    "Releases `instance` from a valid code, freeing its place: 200 with the code's count, 404 when the instance holds no activation of the code. Any other code answers exactly what validation answers for it.":
      'Libera `instance` de um código válido, abrindo o seu lugar: 200 com a contagem do código, 404 quando a ' +
      'instância não tem ativação neste código. Qualquer outro código responde exatamente o que a validação responde para ele.',
    'The activation id': 'O id da ativação',
    'What the client named the install by (a domain, a machine id), trimmed':
      'Como o cliente chamou a instalação (um domínio, um id de máquina), sem espaços nas pontas',
    'When the instance was activated': 'Quando a instância foi ativada',
    'Instances the code holds now': 'Instâncias que o código tem agora',
    "The item's activation limit; null when it has none": 'O limite de ativações do item; null quando não tem',
    'The instance holds no activation of this code': 'A instância não tem ativação neste código',
    'The code holds as many instances as its item allows':
      'O código já tem tantas instâncias quanto o seu item permite',
    'Offline license token': 'Token de licença offline',
    "A license token for a valid purchase code: a JWS (EdDSA, the keys at `{base}/.well-known/jwks.json`, `kid` in its header) whose claims are `iss` (the base URL), `iat`, `exp`, `purchase_code`, `item_id`, `license_type` and `instance` when given. The seller's software checks it offline until `exp`. A code that is not valid answers exactly what validation answers for it.":
      'Um token de licença para um código de compra válido: um JWS (EdDSA, as chaves em ' +
      '`{base}/.well-known/jwks.json`, `kid` no cabeçalho) cujas claims são `iss` (a URL base), `iat`, `exp`, ' +
      '`purchase_code`, `item_id`, `license_type` e `instance` quando enviado. O software do vendedor o verifica ' +
      'offline até `exp`. Um código que não é válido responde exatamente o que a validação responde para ele.',
    'The installation the token is for (1 to 255 characters), carried in its `instance` claim':
      'A instalação para a qual é o token (1 a 255 caracteres), levada na claim `instance`',
    'A JWS compact serialisation (EdDSA), verified with the keys at `{base}/.well-known/jwks.json`':
      'Uma serialização compacta JWS (EdDSA), verificada com as chaves em `{base}/.well-known/jwks.json`',
    "The body's SHA-256 (RFC 9530), covered by the signature": 'O SHA-256 do corpo (RFC 9530), coberto pela assinatura',
    'What the signature covers (RFC 9421): "@status" "content-digest" "@method";req "@path";req "@query";req, and "signature-nonce";req when the request sent one; created, keyid, alg="ed25519" and nonce':
      'O que a assinatura cobre (RFC 9421): "@status" "content-digest" "@method";req "@path";req "@query";req, ' +
      'e "signature-nonce";req quando a solicitação enviou um; created, keyid, alg="ed25519" e nonce',
    'The Ed25519 signature (RFC 9421), verified with the key of its keyid at {base}/.well-known/jwks.json':
      'A assinatura Ed25519 (RFC 9421), verificada com a chave do seu keyid em {base}/.well-known/jwks.json',
    "A value of the client's (1 to 255 visible ASCII characters, no quotes or backslashes), covered by the answer's signature and echoed in its nonce parameter: a recorded answer cannot be replayed to another request":
      'Um valor do cliente (1 a 255 caracteres ASCII visíveis, sem aspas nem barras invertidas), coberto pela ' +
      'assinatura da resposta e repetido no seu parâmetro nonce: uma resposta gravada não pode ser reenviada a outra solicitação',
    // Resources (src/schemas/resource-schemas.ts, response-schemas.ts)
    "By the item's preview type: image, video or audio": 'Conforme o tipo de prévia do item: imagem, vídeo ou áudio',
    "The variant's ISO 4217 currency code": 'O código ISO 4217 da moeda da variante',
    'First and last name joined by one space, trimmed': 'Nome e sobrenome unidos por um espaço, sem espaços nas pontas',
    'Network name to link, keys in alphabetical order; {} when none':
      'Nome da rede -> link, chaves em ordem alfabética; {} quando não há nenhum',
    'Only when the item has at least one screenshot': 'Só quando o item tem ao menos uma captura de tela',
    'The code as stored': 'O código como está guardado',
    'A UTC day, YYYY-MM-DD': 'Um dia UTC, AAAA-MM-DD',
    'Distinct client networks (IPv4 /24, IPv6 /48): exact below 1,024, then estimated within 2 %':
      'Redes de clientes distintas (IPv4 /24, IPv6 /48): exatas abaixo de 1.024, depois estimadas com margem de 2 %',
    'Validations of the code over the retained days (90 by default)':
      'Validações do código nos dias guardados (90 por padrão)',
    'The first validation kept; null when none': 'A primeira validação guardada; null quando não há',
    'The last validation; null when none': 'A última validação; null quando não há',
    'Validations that day': 'Validações naquele dia',
    'Distinct networks that day': 'Redes distintas naquele dia',
    'The last 30 days with any validation, newest first':
      'Os últimos 30 dias com alguma validação, do mais recente ao mais antigo',
    'Validations within the window': 'Validações dentro da janela',
    'The first validation within the window': 'A primeira validação dentro da janela',
    'The last validation within the window': 'A última validação dentro da janela',
    'major.minor.patch': 'maior.menor.correção',
    'ISO 8601 UTC with milliseconds, such as 2024-05-01T12:00:00.000Z':
      'ISO 8601 UTC com milissegundos, como 2024-05-01T12:00:00.000Z',
    "An amount in the variant's currency, at most two decimals":
      'Um valor na moeda da variante, no máximo duas casas decimais',
    "The price paid, in the variant's currency, at most two decimals":
      'O preço pago, na moeda da variante, no máximo duas casas decimais',
    'Only when support is enabled, the item is supported and the purchase has an end date':
      'Só quando o suporte está ativado, o item tem suporte e a compra tem data de fim',
    'A sentence naming the parameter or the fault': 'Uma frase que nomeia o parâmetro ou a falha',
    // Error cases (docs/api.md 2.3)
    'A parameter is missing, blank, malformed, or sent twice with different values':
      'Um parâmetro está ausente, em branco, malformado, ou foi enviado duas vezes com valores diferentes',
    'The body cannot be parsed': 'O corpo não pode ser lido',
    'The key is unknown or revoked, or its account is suspended':
      'A chave é desconhecida ou foi revogada, ou a sua conta está suspensa',
    'The key is a validate key, which may call only purchase validation, activations and license tokens':
      'A chave é uma chave validate, que só pode chamar a validação de compras, as ativações e os tokens de licença',
    'The account has no approved item': 'A conta não tem nenhum item aprovado',
    "No approved item of the key's account has this id": 'Nenhum item aprovado da conta da chave tem este id',
    'The purchase code is not valid for this account': 'O código de compra não é válido para esta conta',
    'A path no endpoint serves': 'Um caminho que nenhum endpoint atende',
    'Another method than the endpoint takes (the Allow header names it)':
      'Outro método que não o do endpoint (o cabeçalho Allow diz qual)',
    'The headers or the body did not arrive in time; the connection is closed':
      'Os cabeçalhos ou o corpo não chegaram a tempo; a conexão é fechada',
    'The body is over 64 KiB': 'O corpo passa de 64 KiB',
    'A body of another type than JSON, form or multipart':
      'Um corpo de outro tipo que não JSON, formulário ou multipart',
    'A budget is spent (failed attempts, requests per key and client, or activity reports per key); retry after Retry-After seconds':
      'Um limite foi esgotado (tentativas falhas, solicitações por chave e cliente, ou relatórios de atividade por chave); tente de novo após Retry-After segundos',
    'The store is unavailable': 'O armazenamento está indisponível',
    'Anything unexpected': 'Qualquer coisa inesperada',
    // HTTP statuses
    Success: 'Sucesso',
    Created: 'Criado',
    Conflict: 'Conflito',
    'Bad request': 'Solicitação inválida',
    Unauthorized: 'Não autorizado',
    Forbidden: 'Proibido',
    'Not found': 'Não encontrado',
    'Method not allowed': 'Método não permitido',
    'Request timeout': 'Tempo esgotado',
    'Payload too large': 'Corpo grande demais',
    'Unsupported media type': 'Tipo de mídia não suportado',
    'Too many requests': 'Solicitações demais',
    'Internal server error': 'Erro interno do servidor',
    'Service unavailable': 'Serviço indisponível',
    // Headers, body, key
    'Always no-store': 'Sempre no-store',
    'Always nosniff': 'Sempre nosniff',
    "The endpoint's methods": 'Os métodos do endpoint',
    'Seconds to wait before trying again': 'Segundos a esperar antes de tentar de novo',
    'The budget closest to running out (when one applies)':
      'O limite mais perto de se esgotar (quando algum se aplica)',
    'What is left of it in this window': 'O que resta dele nesta janela',
    'Seconds until the window starts again': 'Segundos até a janela recomeçar',
    'Parameters come in the body as JSON or a form (multipart form fields work too, no files); 64 KiB at most. The key may come in the body as api_key too.':
      'Os parâmetros vêm no corpo como JSON ou formulário (campos multipart também funcionam, sem arquivos); ' +
      'no máximo 64 KiB. A chave também pode vir no corpo, como api_key.',
    'The seller endpoints': 'Os endpoints do vendedor',
    'The API key in a header': 'A chave de API num cabeçalho',
    'The API key as a bearer token': 'A chave de API como token bearer',
    'The API key in the query string (or the body, on POST); different values in two places: 400':
      'A chave de API na query string (ou no corpo, no POST); valores diferentes em dois lugares: 400',
    // Webhooks (src/schemas/webhook-schemas.ts, openapi-document.ts)
    "A new purchase of one of the seller's items": 'Uma nova compra de um dos itens do vendedor',
    'An instance was activated on one of the seller’s purchase codes':
      'Uma instância foi ativada num dos códigos de compra do vendedor',
    'An activation ended: released, or its purchase refunded or cancelled':
      'Uma ativação terminou: liberada, ou a sua compra foi reembolsada ou cancelada',
    'released: by the client or the seller; refunded, cancelled: the purchase ended it':
      'released: pelo cliente ou pelo vendedor; refunded, cancelled: a compra a encerrou',
    'A purchase was refunded: its code no longer validates':
      'Uma compra foi reembolsada: seu código deixa de ser válido',
    'A purchase was cancelled: its code no longer validates':
      'Uma compra foi cancelada: seu código deixa de ser válido',
    'A purchase was downloaded for the first time': 'Uma compra foi baixada pela primeira vez',
    "The seller's API key was replaced": 'A chave de API do vendedor foi substituída',
    'Sent on request (the workspace\'s "Send test event"), to one endpoint, whatever it subscribes to':
      'Enviado a pedido ("Enviar evento de teste" do painel), a um endpoint, quaisquer que sejam seus eventos',
    'Sent by the service to each endpoint of the seller subscribed to this event, signed by the Standard Webhooks scheme: verify the signature (the SDK has verifyWebhook) before trusting the body. Answer 2xx within 10 s; any other answer, or none, is retried with exponential back-off for about 3 days, so an event may arrive more than once and in any order: use the event id to skip one seen before.':
      'Enviado pelo serviço a cada endpoint do vendedor inscrito neste evento, assinado pelo esquema Standard Webhooks: confira a assinatura (o SDK tem verifyWebhook) antes de confiar no corpo. Responda 2xx em até 10 s; qualquer outra resposta, ou nenhuma, é repetida com espera exponencial por cerca de 3 dias, então um evento pode chegar mais de uma vez e em qualquer ordem: use o id do evento para ignorar um já visto.',
    'The event id: the same on every retry of the event': 'O id do evento: o mesmo em cada nova tentativa do evento',
    'When this attempt was signed, in seconds since the epoch: refuse one too far from now':
      'Quando esta tentativa foi assinada, em segundos desde a época: recuse uma longe demais de agora',
    'v1, then a comma and the base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the secret after whsec_; two of them, separated by a space, while a rotated secret still signs':
      'v1, uma vírgula e o HMAC-SHA256 em base64 de "{webhook-id}.{webhook-timestamp}.{body}" com a chave do segredo após whsec_; dois deles, separados por um espaço, enquanto um segredo substituído ainda assina',
    'Received: the event is not sent again': 'Recebido: o evento não é enviado de novo',
    'The event id, also sent as the webhook-id header: the same on every retry, so a receiver can skip one seen before':
      'O id do evento, também enviado no cabeçalho webhook-id: o mesmo em cada nova tentativa, para o receptor ignorar um já visto',
    'When the change was made (not when it was sent)': 'Quando a mudança foi feita (não quando foi enviada)',
    'The username of the seller the event is about': 'O nome de usuário do vendedor a quem o evento se refere',
    "The purchase's status after the change": 'A situação da compra depois da mudança',
    "The item as it is now; null when it is no longer this seller's (moved to another, or deleted)":
      'O item como está agora; null quando não é mais deste vendedor (passou a outro, ou foi apagado)',
    'Until when the replaced key keeps working; null when it stopped at once. The key itself is never sent':
      'Até quando a chave substituída continua funcionando; null quando parou na hora. A chave nunca é enviada',
    // MarketBob's shape (src/schemas/marketbob-schemas.ts, marketbob-document.ts)
    'The api_key parameter is missing or blank': 'O parâmetro api_key está ausente ou em branco',
    'The key is unknown, its user is not active, or the profile lacks a first name, last name, username, email or password':
      'A chave é desconhecida, o seu usuário não está ativo, ou falta ao perfil nome, sobrenome, nome de usuário, email ou senha',
    "The approved items of the key's author, newest id first.":
      'Os itens aprovados do autor da chave, do id mais novo ao mais antigo.',
    "The author's approved items, newest id first; none answer 404 (MarketBob's own code also answers 404 for one: we answer the list)":
      'Os itens aprovados do autor, do id mais novo ao mais antigo; nenhum responde 404 (o próprio código do MarketBob também responde 404 para um só: nós respondemos a lista)',
    "The key is no author's, or the author has no approved item":
      'A chave não é de um autor, ou o autor não tem nenhum item aprovado',
    "The marketplace has switched its API off (MarketBob's actions.api setting)":
      'O marketplace desligou a sua API (a configuração actions.api do MarketBob)',
    "One approved item of the key's author.": 'Um item aprovado do autor da chave.',
    'The item_id parameter is missing or blank': 'O parâmetro item_id está ausente ou em branco',
    'The item_id parameter is not an integer': 'O parâmetro item_id não é um número inteiro',
    "The key is no author's, or the author has no approved item with this id":
      'A chave não é de um autor, ou o autor não tem nenhum item aprovado com este id',
    "The item's id, an integer": 'O id do item, um número inteiro',
    "The purchase whose code matches (any letter case) and is active, of one of the key's author's items; the purchase comes under the key item.":
      'A compra cujo código confere (maiúsculas ou minúsculas) e está ativa, de um dos itens do autor da chave; ' +
      'a compra vem sob a chave item.',
    'The purchase_code parameter is missing or blank': 'O parâmetro purchase_code está ausente ou em branco',
    "The key is no author's, or the code is not an active purchase of the author's items":
      'A chave não é de um autor, ou o código não é uma compra ativa dos itens do autor',
    'Parameters come in the body as JSON or a form, or in the query string; each is trimmed, and a blank one counts as missing. The key may come in the body as api_key too.':
      'Os parâmetros vêm no corpo como JSON ou formulário, ou na query string; cada um perde os espaços nas pontas, ' +
      'e um vazio conta como ausente. A chave também pode vir no corpo, como api_key.',
    'First and last name joined by a space when both are set, else the username, else the part of the email before @':
      'Nome e sobrenome unidos por um espaço quando ambos existem, senão o nome de usuário, senão a parte do email antes do @',
    'The stored balance, unrounded': 'O saldo guardado, sem arredondamento',
    "The marketplace's currency code setting": 'O código de moeda configurado no marketplace',
    'null when not set': 'null quando não preenchido',
    'The stored object as it is, every key kept; null when not set':
      'O objeto guardado como está, com todas as chaves; null quando não preenchido',
    "The user's avatar as a URL, else the default avatar's; null when neither is set":
      'O avatar do usuário como URL, senão o avatar padrão; null quando nenhum está preenchido',
    "The thumbnail as a URL, else the preview image's; null when neither is set":
      'A miniatura como URL, senão a imagem de pré-visualização; null quando nenhuma está preenchida',
    'A URL; null when not set': 'Uma URL; null quando não preenchida',
    "The user's cover as a URL, else the default cover's; null when neither is set":
      'A capa do usuário como URL, senão a capa padrão; null quando nenhuma está preenchida',
    'ISO 8601 UTC with six decimals, such as 2024-02-01T16:00:00.000000Z':
      'ISO 8601 UTC com seis casas decimais, como 2024-02-01T16:00:00.000000Z',
    "The category's name": 'O nome da categoria',
    "The sub-category's name; null when not set": 'O nome da subcategoria; null quando não preenchido',
    'The stored JSON as it is (an object or a list); null when not set':
      'O JSON guardado como está (um objeto ou uma lista); null quando não preenchido',
    'As stored; null when not set': 'Como está guardado; null quando não preenchido',
    'The stored comma-separated tags, unchanged': 'As tags guardadas, separadas por vírgulas, sem mudança',
    "By the item's preview type: image (with screenshots), video or audio":
      'Conforme o tipo de prévia do item: imagem (com capturas de tela), vídeo ou áudio',
    'URLs keyed "0", "1", ... in order; null when the item has none':
      'URLs com as chaves "0", "1", ... em ordem; null quando o item não tem nenhuma',
    'The regular price plus the buyer fee (the active discount when there is one), unrounded':
      'O preço regular mais a taxa do comprador (o desconto ativo, quando há), sem arredondamento',
    'The extended price plus the buyer fee (the active discount when there is one), unrounded':
      'O preço estendido mais a taxa do comprador (o desconto ativo, quando há), sem arredondamento',
    'The price paid, unrounded': 'O preço pago, sem arredondamento',
    'Only when support is enabled and the purchase has a support end date':
      'Só quando o suporte está ativado e a compra tem data de fim do suporte',
    'The API key as the api_key parameter: in the query string, or in the body on POST':
      'A chave de API como o parâmetro api_key: na query string, ou no corpo no POST',
    // Example records' words (openapi-examples.ts)
    'Themes and plugins': 'Temas e plugins',
    'Handmade admin themes since 2015.': 'Temas de administração feitos à mão desde 2015.',
    'A responsive admin dashboard template.': 'Um modelo responsivo de painel de administração.',
    'Ambient loops for videos.': 'Loops ambientes para vídeos.',
    Responsive: 'Responsivo',
    Layout: 'Layout',
    'Dark mode': 'Modo escuro',
    Music: 'Música',
    Ambient: 'Ambiente',
  },
  uiLabels: {
    'Try it out': 'Experimentar',
    Execute: 'Executar',
    Cancel: 'Cancelar',
    Clear: 'Limpar',
    Parameters: 'Parâmetros',
    'No parameters': 'Sem parâmetros',
    'Request body': 'Corpo da solicitação',
    Responses: 'Respostas',
    'Response body': 'Corpo da resposta',
    'Response headers': 'Cabeçalhos da resposta',
    'Request URL': 'URL da solicitação',
    'Server response': 'Resposta do servidor',
    'Request duration': 'Duração da solicitação',
    'Media type': 'Tipo de mídia',
    // "Controls <code>Accept</code> header.": three text nodes.
    Controls: 'Define o cabeçalho',
    'header.': '.',
    'Headers:': 'Cabeçalhos:',
    'Example Value': 'Exemplo',
    Schema: 'Esquema',
    Schemas: 'Esquemas',
    Servers: 'Servidores',
    Authorize: 'Autorizar',
    Authorized: 'Autorizado',
    'Available authorizations': 'Autorizações disponíveis',
    Close: 'Fechar',
    Logout: 'Sair',
    'No links': 'Sem links',
    Undocumented: 'Não documentado',
    Details: 'Detalhes',
    Download: 'Baixar',
    'Send empty value': 'Enviar valor vazio',
    Description: 'Descrição',
    Code: 'Código',
    Name: 'Nome',
    'Value:': 'Valor:',
    'Name:': 'Nome:',
    'In:': 'Em:',
    required: 'obrigatório',
    loading: 'carregando',
    'Expand all': 'Expandir tudo',
    'Collapse all': 'Recolher tudo',
    'Failed to fetch': 'Falha na conexão',
    Examples: 'Exemplos',
    'Example Description': 'Descrição do exemplo',
    'Apply credentials': 'Aplicar credenciais',
    'Edit Value': 'Editar valor',
    Headers: 'Cabeçalhos',
    Value: 'Valor',
    Type: 'Tipo',
    'Response content type': 'Tipo de conteúdo da resposta',
    'Parameter content type': 'Tipo de conteúdo do parâmetro',
    'Copy to clipboard': 'Copiar',
  },
};

export const docsLanguages: Readonly<Record<Lang, DocsLanguage>> = { en, pt };

/** The document's text in a language: itself in English, else its translation (a missing one throws). */
export function translator(language: DocsLanguage): (english: string) => string {
  const { translations } = language;
  if (translations === undefined) return (english) => english;
  return (english) => {
    const translated = translations[english];
    if (translated === undefined) throw new Error(`no ${language.htmlLang} translation of ${JSON.stringify(english)}`);
    return translated;
  };
}

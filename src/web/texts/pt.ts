import type { WorkspaceTexts } from './workspace-texts.js';

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

export const pt: WorkspaceTexts = {
  lang: 'pt-BR',
  locale: 'pt-BR',
  appName: 'Painel do vendedor',
  skipToContent: 'Pular para o conteúdo',
  signedInAs: 'Conectado como',
  logOut: 'Sair',
  nav: {
    label: 'Painel',
    settings: 'Configurações',
    purchaseCodes: 'Códigos de compra',
    apiDocs: 'Documentação da API',
  },
  login: {
    title: 'Entrar',
    intro: 'Entre para gerenciar sua conta de vendedor.',
    username: 'Usuário ou e-mail',
    password: 'Senha',
    submit: 'Entrar',
    usernameMissing: 'Informe seu usuário ou e-mail.',
    passwordMissing: 'Informe sua senha.',
    wrongCredentials: 'Usuário, e-mail ou senha incorretos. Tente novamente.',
    suspended: 'Esta conta está suspensa e não pode entrar. Fale com o marketplace.',
    tooManyAttempts: (minutes) =>
      `Tentativas demais sem sucesso. Aguarde ${plural(minutes, 'minuto', 'minutos')} e tente novamente.`,
    busy: 'Muitas pessoas estão entrando agora. Tente novamente em instantes.',
    loggedOut: 'Você saiu.',
    sessionEnded: 'Sua sessão terminou. Entre novamente.',
  },
  settings: {
    title: 'Configurações',
    apiKey: 'Chave de API',
    apiKeyIntro: 'Seus programas usam esta chave para chamar a API do marketplace. Mantenha-a em segredo.',
    keyHidden: 'Chave oculta, terminada em',
    keyLabel: 'Sua chave de API',
    show: 'Mostrar',
    hide: 'Ocultar',
    copy: 'Copiar',
    copied: 'Copiado',
    copiedNote: 'A chave foi copiada para a área de transferência.',
    copyFailed: 'Não foi possível copiar. Selecione a chave e copie você mesmo.',
    keyDetails: 'Sobre esta chave',
    created: 'Criada em',
    createdUnknown: 'Não registrada (a chave foi importada)',
    lastUsed: 'Último uso',
    lastUsedNever: 'Ainda não (os usos são registrados uma vez por minuto)',
    exampleTitle: 'Validar um código de compra',
    exampleIntro:
      'Seu software envia o código que o comprador informou, a cada instalação ou ativação. A resposta é 200 com a compra quando o código é válido, 404 quando não é.',
    exampleMasked: 'A chave está oculta nestes exemplos. Use Mostrar para vê-los prontos para copiar.',
    examplePurchaseCode: 'CODIGO-DE-COMPRA',
    examplePhpComment: '$purchaseCode: o código informado pelo comprador',
    docsLink: 'Ler a documentação da API',
    newKeyTitle: 'Nova chave',
    newKeyText:
      'Se a chave pode ter vazado, substitua-a. Os programas que usam a chave atual precisarão da nova. Você confirmará antes.',
    generate: 'Gerar nova chave',
    noKey: 'Esta conta ainda não tem chave de API.',
    keyFromMarketplace:
      'Sua chave de API é gerenciada pelo marketplace onde você vende. Para substituí-la, gere uma nova chave nas configurações da sua conta lá: a nova chave passa a funcionar aqui em segundos, e a anterior deixa de funcionar.',
    noKeyFromMarketplace:
      'Esta conta ainda não tem chave de API. Gere uma nas configurações da sua conta no marketplace onde você vende: ela passa a funcionar aqui em segundos.',
    newKeyShownOnce: 'Sua nova chave aparece aqui por inteiro uma única vez. Copie-a agora e guarde-a em segurança.',
    oldKeyStopped: 'Sua chave anterior não funciona mais.',
    oldKeyWorksUntil: 'Sua chave anterior continua funcionando até',
  },
  purchaseCodes: {
    title: 'Códigos de compra',
    intro:
      'Cada vez que o seu software valida um dos seus códigos de compra, isso é contado aqui: quantas vezes, e a partir de quantas redes diferentes. Um código comprado uma vez e usado a partir de muitas redes geralmente vazou.',
    howCounted: (flushSeconds, retentionDays) =>
      `Uma rede é um /24 IPv4 ou um /48 IPv6; nenhum endereço é guardado. As contagens aparecem em até ${plural(flushSeconds, 'segundo', 'segundos')} e são guardadas por ${plural(retentionDays, 'dia', 'dias')}.`,
    searchLabel: 'Código de compra',
    searchHint: 'Veja como um código é usado, dia a dia.',
    search: 'Buscar',
    notYours: (code) => `Nenhum dos seus códigos de compra é “${code}”.`,
    topTitle: (days) => `Vistos a partir de mais redes, últimos ${plural(days, 'dia', 'dias')}`,
    windowLabel: 'Período',
    lastDays: (days) => `Últimos ${days} dias`,
    downloadCsv: 'Baixar CSV',
    none: (days) => `Nenhum dos seus códigos foi validado nos últimos ${plural(days, 'dia', 'dias')}.`,
    columns: {
      code: 'Código de compra',
      item: 'Item',
      purchased: 'Comprado em',
      validations: 'Validações',
      networks: 'Redes',
      lastSeen: 'Visto por último',
      status: 'Situação',
    },
    statuses: { active: 'Ativo', refunded: 'Reembolsado', cancelled: 'Cancelado' },
    codeTitle: (code) => `Código ${code}`,
    totals: (retentionDays) => `Últimos ${plural(retentionDays, 'dia', 'dias')}`,
    firstSeen: 'Visto pela primeira vez',
    neverSeen: 'Ainda não validado',
    chartTitle: 'Validações por dia, últimos 30 dias',
    chartSummary: (days, validations, busiestDate, busiest) =>
      `${plural(validations, 'validação', 'validações')} nos últimos ${days} dias; o dia mais movimentado foi ${busiestDate}, com ${busiest}.`,
    chartEmpty: 'Nenhuma validação nos últimos 30 dias.',
    dayTable: 'Os dias em uma tabela',
    date: 'Data (UTC)',
    backToList: 'Voltar para todos os códigos',
    itemGone: 'Item não encontrado',
  },
  confirm: {
    title: 'Gerar uma nova chave de API?',
    stopsAtOnce:
      'Sua chave atual deixará de funcionar imediatamente. Os programas que a usam precisarão da nova chave.',
    stopsAfterGrace: (duration) =>
      `Sua chave atual continuará funcionando por ${duration} e depois deixará de funcionar. Os programas que a usam precisarão da nova chave.`,
    endOldKeyNow: 'Encerrar a chave antiga agora',
    yes: 'Sim, gerar nova chave',
    cancel: 'Cancelar',
  },
  duration: (seconds) =>
    seconds % 3600 === 0
      ? plural(seconds / 3600, 'hora', 'horas')
      : seconds % 60 === 0
        ? plural(seconds / 60, 'minuto', 'minutos')
        : plural(seconds, 'segundo', 'segundos'),
  problems: {
    csrfTitle: 'Este formulário expirou',
    csrfText:
      'O formulário não foi aceito porque expirou ou não veio deste site. Nada foi alterado. Volte, recarregue a página e tente novamente.',
    badFormTitle: 'Não foi possível ler o formulário',
    badFormText: 'Nada foi alterado. Volte e tente novamente.',
    notFoundTitle: 'Página não encontrada',
    notFoundText: 'Não há nenhuma página neste endereço.',
    unavailableTitle: 'Indisponível no momento',
    unavailableText: 'O painel não pode ser usado agora. Tente novamente em alguns minutos.',
    errorTitle: 'Algo deu errado',
    errorText: 'Um erro inesperado interrompeu esta página. Tente novamente.',
    backToStart: 'Ir para o painel',
  },
};

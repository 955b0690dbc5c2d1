import type { WorkspaceTexts } from './workspace-texts.js';

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

export const en: WorkspaceTexts = {
  lang: 'en',
  locale: 'en-GB',
  appName: 'Seller workspace',
  skipToContent: 'Skip to content',
  signedInAs: 'Signed in as',
  logOut: 'Log out',
  nav: {
    label: 'Workspace',
    settings: 'Settings',
    purchaseCodes: 'Purchase codes',
    apiDocs: 'API docs',
  },
  login: {
    title: 'Log in',
    intro: 'Log in to manage your seller account.',
    username: 'Username or email',
    password: 'Password',
    submit: 'Log in',
    usernameMissing: 'Enter your username or email.',
    passwordMissing: 'Enter your password.',
    wrongCredentials: 'The username, email or password is not right. Please try again.',
    suspended: 'This account is suspended and cannot log in. Please contact the marketplace.',
    tooManyAttempts: (minutes) =>
      `Too many failed attempts. Please wait ${plural(minutes, 'minute', 'minutes')} and try again.`,
    busy: 'Too many people are logging in right now. Please try again in a moment.',
    loggedOut: 'You have logged out.',
    sessionEnded: 'Your session has ended. Please log in again.',
  },
  settings: {
    title: 'Settings',
    apiKey: 'API Key',
    apiKeyIntro: 'Your programs use this key to call the marketplace API. Keep it secret.',
    keyHidden: 'Hidden key, ending in',
    keyLabel: 'Your API key',
    show: 'Show',
    hide: 'Hide',
    copy: 'Copy',
    copied: 'Copied',
    copiedNote: 'The key is copied to the clipboard.',
    copyFailed: 'Could not copy. Select the key and copy it yourself.',
    keyDetails: 'About this key',
    created: 'Created',
    createdUnknown: 'Not recorded (the key was imported)',
    lastUsed: 'Last used',
    lastUsedNever: 'Not yet (uses are recorded once a minute)',
    exampleTitle: 'Validate a purchase code',
    exampleIntro:
      'Your software sends the code a buyer entered, on each install or activation. The answer is 200 with the purchase when the code is valid, 404 when it is not.',
    exampleMasked: 'The key is hidden in these examples. Use Show to see them ready to copy.',
    examplePurchaseCode: 'BUYERS-PURCHASE-CODE',
    examplePhpComment: '$purchaseCode: the code the buyer entered',
    docsLink: 'Read the API documentation',
    newKeyTitle: 'New key',
    newKeyText:
      'If the key may have leaked, replace it. Programs that use the current key must be given the new one. You are asked to confirm first.',
    generate: 'Generate new key',
    noKey: 'This account has no API key yet.',
    keyFromMarketplace:
      'Your API key is managed by the marketplace you sell on. To replace it, generate a new key in your account settings there: the new key works here within seconds, and the old one stops.',
    noKeyFromMarketplace:
      'This account has no API key yet. Generate one in your account settings on the marketplace you sell on: it works here within seconds.',
    newKeyShownOnce: 'Your new key is shown here in full once. Copy it now and keep it safe.',
    oldKeyStopped: 'Your previous key no longer works.',
    oldKeyWorksUntil: 'Your previous key keeps working until',
  },
  purchaseCodes: {
    title: 'Purchase codes',
    intro:
      'Every time your software validates one of your purchase codes, it is counted here: how often, and from how many different networks. A code bought once and used from many networks has usually leaked.',
    howCounted: (flushSeconds, retentionDays) =>
      `A network is an IPv4 /24 or an IPv6 /48; no address is kept. Counts appear within ${plural(flushSeconds, 'second', 'seconds')} and are kept ${plural(retentionDays, 'day', 'days')}.`,
    searchLabel: 'Purchase code',
    searchHint: 'See how one code is used, day by day.',
    search: 'Search',
    notYours: (code) => `None of your purchase codes is “${code}”.`,
    topTitle: (days) => `Seen from the most networks, last ${plural(days, 'day', 'days')}`,
    windowLabel: 'Period',
    lastDays: (days) => `Last ${days} days`,
    downloadCsv: 'Download CSV',
    none: (days) => `None of your codes was validated in the last ${plural(days, 'day', 'days')}.`,
    columns: {
      code: 'Purchase code',
      item: 'Item',
      purchased: 'Purchased',
      validations: 'Validations',
      networks: 'Networks',
      lastSeen: 'Last seen',
      status: 'Status',
    },
    statuses: { active: 'Active', refunded: 'Refunded', cancelled: 'Cancelled' },
    codeTitle: (code) => `Code ${code}`,
    totals: (retentionDays) => `Last ${plural(retentionDays, 'day', 'days')}`,
    firstSeen: 'First seen',
    neverSeen: 'Not validated yet',
    chartTitle: 'Validations per day, last 30 days',
    chartSummary: (days, validations, busiestDate, busiest) =>
      `${plural(validations, 'validation', 'validations')} in the last ${days} days; the busiest day was ${busiestDate}, with ${busiest}.`,
    chartEmpty: 'No validation in the last 30 days.',
    dayTable: 'The days as a table',
    date: 'Date (UTC)',
    backToList: 'Back to all codes',
    itemGone: 'Item not found',
  },
  confirm: {
    title: 'Generate a new API key?',
    stopsAtOnce: 'Your current key will stop working at once. Programs that use it must be given the new key.',
    stopsAfterGrace: (duration) =>
      `Your current key will keep working for ${duration}, then stop. Programs that use it must be given the new key.`,
    endOldKeyNow: 'End the old key now',
    yes: 'Yes, generate a new key',
    cancel: 'Cancel',
  },
  duration: (seconds) =>
    seconds % 3600 === 0
      ? plural(seconds / 3600, 'hour', 'hours')
      : seconds % 60 === 0
        ? plural(seconds / 60, 'minute', 'minutes')
        : plural(seconds, 'second', 'seconds'),
  problems: {
    csrfTitle: 'This form has expired',
    csrfText:
      'The form was not accepted because it expired or did not come from this site. Nothing was changed. Go back, reload the page and try again.',
    badFormTitle: 'The form could not be read',
    badFormText: 'Nothing was changed. Go back and try again.',
    notFoundTitle: 'Page not found',
    notFoundText: 'There is no page at this address.',
    unavailableTitle: 'Temporarily unavailable',
    unavailableText: 'The workspace cannot be used right now. Please try again in a few minutes.',
    errorTitle: 'Something went wrong',
    errorText: 'An unexpected error stopped this page. Please try again.',
    backToStart: 'Go to the workspace',
  },
};

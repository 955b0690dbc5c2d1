/** Everything the seller's workspace pages say in one language: one object per language, the same shape. */
export interface WorkspaceTexts {
  /** The `lang` attribute of the pages. */
  readonly lang: string;
  /** Dates are written for this locale, in UTC. */
  readonly locale: string;
  readonly appName: string;
  readonly skipToContent: string;
  readonly signedInAs: string;
  readonly logOut: string;
  /** The navigation beside every signed-in page (and the docs link of the header). */
  readonly nav: {
    readonly label: string;
    readonly settings: string;
    readonly purchaseCodes: string;
    readonly webhooks: string;
    readonly apiDocs: string;
  };
  readonly login: {
    readonly title: string;
    readonly intro: string;
    readonly username: string;
    readonly password: string;
    readonly submit: string;
    /** A field left blank: the app's own message (the forms are `novalidate`), in the page's language. */
    readonly usernameMissing: string;
    readonly passwordMissing: string;
    readonly wrongCredentials: string;
    readonly suspended: string;
    readonly tooManyAttempts: (minutes: number) => string;
    /** Too many logins are being checked at once: answered at once rather than queued. */
    readonly busy: string;
    readonly loggedOut: string;
    readonly sessionEnded: string;
    /**
     * A seller who turned on two-factor login on the marketplace, when this server cannot check
     * codes (no MarketBob APP_KEY, or a secret it cannot read): refused, pointed to the marketplace.
     */
    readonly useMarketplace: string;
    /** The code page was left too long (or its password changed): the login starts over. */
    readonly codeExpired: string;
  };
  /** The second step of a two-factor login: the six-digit code of the seller's authenticator app. */
  readonly twoFactor: {
    readonly title: string;
    readonly intro: string;
    readonly code: string;
    readonly submit: string;
    readonly codeMissing: string;
    /** A wrong code, or one used already: never says which. */
    readonly wrongCode: string;
    readonly startOver: string;
  };
  readonly settings: {
    readonly title: string;
    readonly apiKey: string;
    readonly apiKeyIntro: string;
    readonly keyHidden: string;
    readonly keyLabel: string;
    readonly show: string;
    readonly hide: string;
    readonly copy: string;
    readonly copied: string;
    /** Said by screen readers once Copy worked (the button itself then reads `copied`). */
    readonly copiedNote: string;
    readonly copyFailed: string;
    readonly keyDetails: string;
    readonly created: string;
    /** In place of `created` for a key an import set: when it arrived (it was made elsewhere). */
    readonly importedOn: string;
    /** A key an import set before imports were dated: made elsewhere, when is not known. */
    readonly createdUnknown: string;
    readonly lastUsed: string;
    readonly lastUsedNever: string;
    readonly exampleTitle: string;
    readonly exampleIntro: string;
    /** Under the examples while the key is masked in them. */
    readonly exampleMasked: string;
    /** The placeholder purchase code of the curl example. */
    readonly examplePurchaseCode: string;
    /** The comment of the PHP example (a line of PHP, without the `//`). */
    readonly examplePhpComment: string;
    readonly docsLink: string;
    /** The card of the public keys that verify the API's signed answers and license tokens. */
    readonly signingTitle: string;
    readonly signingIntro: string;
    readonly signingKeyId: string;
    readonly signingPublicKey: string;
    readonly signingKeySetLink: string;
    readonly newKeyTitle: string;
    readonly newKeyText: string;
    readonly generate: string;
    readonly noKey: string;
    /** In place of "Generate new key" for an account whose key the marketplace (MarketBob) owns. */
    readonly keyFromMarketplace: string;
    /** Such an account without a key. */
    readonly noKeyFromMarketplace: string;
    readonly newKeyShownOnce: string;
    readonly oldKeyStopped: string;
    readonly oldKeyWorksUntil: string;
  };
  /** The Purchase codes page: how each code is used. */
  readonly purchaseCodes: {
    readonly title: string;
    readonly intro: string;
    /** How often counts are written, and what a network is: said under the intro. */
    readonly howCounted: (flushSeconds: number, retentionDays: number) => string;
    readonly searchLabel: string;
    readonly searchHint: string;
    readonly search: string;
    /** A search for a code that is not one of the seller's (or none): never says which. */
    readonly notYours: (code: string) => string;
    readonly topTitle: (days: number) => string;
    readonly windowLabel: string;
    readonly lastDays: (days: number) => string;
    readonly downloadCsv: string;
    readonly none: (days: number) => string;
    readonly columns: {
      readonly code: string;
      readonly item: string;
      readonly purchased: string;
      readonly validations: string;
      readonly networks: string;
      readonly lastSeen: string;
      readonly status: string;
    };
    readonly statuses: { readonly active: string; readonly refunded: string; readonly cancelled: string };
    /** One code's card. */
    readonly codeTitle: (code: string) => string;
    readonly totals: (retentionDays: number) => string;
    readonly firstSeen: string;
    readonly neverSeen: string;
    readonly chartTitle: string;
    /** The chart's text for screen readers: what it shows, in one sentence. */
    readonly chartSummary: (days: number, validations: number, busiestDate: string, busiest: number) => string;
    readonly chartEmpty: string;
    readonly dayTable: string;
    readonly date: string;
    readonly backToList: string;
    readonly itemGone: string;
    /** The code's activations: the installs it holds, each released here, and its item's limit. */
    readonly activations: {
      readonly title: string;
      readonly intro: string;
      /** "2 of 3 in use", or with no limit "2 in use". */
      readonly used: (used: string, limit: string | undefined) => string;
      readonly none: string;
      readonly instance: string;
      readonly activatedAt: string;
      readonly lastValidated: string;
      readonly neverValidated: string;
      readonly release: string;
      /** The release button's name for a screen reader: which install. */
      readonly releaseLabel: (instance: string) => string;
      readonly limitLabel: string;
      readonly limitHint: string;
      readonly saveLimit: string;
      readonly badLimit: string;
    };
  };
  /** The Webhooks page: the seller's signed webhook endpoints. */
  readonly webhooks: {
    readonly title: string;
    readonly intro: string;
    readonly verifyHint: string;
    readonly addTitle: string;
    readonly url: string;
    readonly urlHint: string;
    readonly events: string;
    /** Each event's name as the form offers it. */
    readonly eventNames: Readonly<Record<string, string>>;
    readonly lang: string;
    readonly langNames: Readonly<Record<string, string>>;
    readonly add: string;
    /** What is wrong with the form, by field. */
    readonly problems: { readonly url: string; readonly events: string; readonly lang: string; readonly limit: string };
    readonly secretTitle: string;
    readonly secretShownOnce: string;
    readonly secretOverlap: string;
    readonly copiedNote: string;
    readonly copyFailed: string;
    readonly endpointsTitle: string;
    readonly none: string;
    readonly endpointLabel: string;
    readonly statuses: { readonly enabled: string; readonly seller: string; readonly failures: string };
    readonly disabledAfterFailures: string;
    readonly failingSince: string;
    readonly lastSuccess: string;
    readonly never: string;
    readonly pending: string;
    readonly sendTest: string;
    readonly testQueued: string;
    readonly disable: string;
    readonly enable: string;
    readonly remove: string;
    readonly removed: string;
    readonly rotateSecret: string;
    readonly deliveriesTitle: string;
    readonly noDeliveries: string;
    readonly columns: {
      readonly event: string;
      readonly time: string;
      readonly state: string;
      readonly attempts: string;
      readonly response: string;
      readonly detail: string;
    };
    readonly states: { readonly pending: string; readonly succeeded: string; readonly failed: string };
    readonly retry: string;
    readonly retryQueued: string;
  };
  readonly confirm: {
    readonly title: string;
    readonly stopsAtOnce: string;
    readonly stopsAfterGrace: (duration: string) => string;
    /** The choice, when the old key would keep working a while, to end it now instead. */
    readonly endOldKeyNow: string;
    readonly yes: string;
    readonly cancel: string;
  };
  /** A whole number of seconds, in words ("5 minutes"). */
  readonly duration: (seconds: number) => string;
  readonly problems: {
    readonly csrfTitle: string;
    readonly csrfText: string;
    readonly badFormTitle: string;
    readonly badFormText: string;
    readonly notFoundTitle: string;
    readonly notFoundText: string;
    readonly unavailableTitle: string;
    readonly unavailableText: string;
    readonly errorTitle: string;
    readonly errorText: string;
    readonly backToStart: string;
  };
  /** The front page, the language switch and the copy buttons of code examples. */
  readonly site: {
    /** This language's name, in this language: how the language switch offers it. */
    readonly languageName: string;
    readonly languageSwitch: string;
    readonly copy: string;
    readonly copied: string;
    /** The clipboard is not allowed: the example is selected for the reader's own shortcut. */
    readonly copyManually: string;
    readonly front: {
      /** The page's title and heading: the marketplace's name comes before it. */
      readonly title: string;
      readonly intro: (brand: string) => string;
      readonly linksLabel: string;
      readonly docs: string;
      readonly docsText: string;
      readonly openapi: string;
      readonly openapiText: string;
      readonly login: string;
      readonly loginText: string;
      readonly firstCall: string;
      readonly firstCallText: string;
      readonly servedBy: (product: string, version: string) => string;
    };
  };
  /** Webhook URLs checked when added, and what deliveries came to, in the page's language. */
  readonly webhookChecks: {
    /** Why a URL was refused when added, by reason. */
    readonly urlProblems: {
      readonly absolute: string;
      readonly scheme: string;
      readonly https: string;
      readonly credentials: string;
      readonly fragment: string;
      readonly length: string;
      readonly private: string;
    };
    /** The status of an endpoint disabled because its address is refused, and what to do. */
    readonly statusRefused: string;
    readonly refusedText: string;
    /** A delivery's detail: what the last attempt came to. */
    readonly details: {
      readonly privateAddress: string;
      readonly urlRefused: (why: string) => string;
      readonly timedOut: (seconds: string) => string;
      readonly couldNotConnect: (code: string) => string;
      readonly redirect: string;
      readonly httpStatus: (status: string) => string;
      readonly notPrepared: string;
      /** The receiver's own words after the detail, as it answered them. */
      readonly excerpt: (detail: string, excerpt: string) => string;
    };
  };
  /** The Settings page's named keys: more keys beside the account's own, each with a scope. */
  readonly namedKeys: {
    readonly title: string;
    readonly intro: string;
    readonly none: string;
    readonly columns: {
      readonly name: string;
      readonly scope: string;
      readonly created: string;
      readonly lastUsed: string;
      readonly actions: string;
    };
    readonly scopes: { readonly validate: string; readonly full: string };
    readonly never: string;
    readonly revoke: string;
    /** The revoke button's accessible name, naming the key. */
    readonly revokeLabel: (name: string) => string;
    readonly addTitle: string;
    readonly name: string;
    readonly nameHint: string;
    readonly scope: string;
    readonly add: string;
    readonly badName: string;
    readonly badScope: string;
    /** Above the key just made, shown this once. */
    readonly createdShownOnce: (name: string) => string;
    readonly revoked: (name: string) => string;
    /** Under the examples when they use a validate key rather than the account's own. */
    readonly exampleUsesKey: (name: string) => string;
  };
  /** The settings page's validation examples, as they run when pasted. */
  readonly exampleWords: {
    /** The PHP's comment over the code when it is a placeholder, and when it is one of the seller's. */
    readonly phpCodeComment: string;
    readonly phpOwnCodeComment: string;
    /** What the PHP prints. */
    readonly phpValid: string;
    readonly phpNotValid: string;
  };
}

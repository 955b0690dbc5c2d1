/** What a key given in a file (an import, a MarketBob user) may look like: the importer's rule and the bridge's. */
export const API_KEY_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

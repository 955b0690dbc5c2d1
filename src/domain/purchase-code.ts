/** Longest code that can exist; anything longer is invalid without asking the store. */
export const MAX_PURCHASE_CODE_LENGTH = 100;
const CODE_CHARACTERS = /^[A-Za-z0-9_-]+$/;

/**
 * The lookup key for a code as a client sent it (already trimmed), or undefined when no stored
 * purchase could have it. Codes match regardless of letter case.
 */
export function purchaseCodeKey(code: string): string | undefined {
  if (code.length > MAX_PURCHASE_CODE_LENGTH || !CODE_CHARACTERS.test(code)) return undefined;
  return code.toLowerCase();
}

/** A purchase validates for an account only while active and for one of the account's items, whatever the item's status. */
export function purchaseIsValidFor(
  purchase: { readonly status: string },
  itemAccount: string,
  username: string,
): boolean {
  return purchase.status === 'active' && itemAccount === username;
}

/**
 * What an API key may call: `full`, every endpoint (an account's own key always); `validate`, only
 * what a seller's shipped software needs (purchase validation and activations; see
 * src/keys/key-scopes.ts). A key inside software anyone may unpack then reads no account and no item.
 */
export const KEY_SCOPES = ['full', 'validate'] as const;

export type KeyScope = (typeof KEY_SCOPES)[number];

export function isKeyScope(value: unknown): value is KeyScope {
  return typeof value === 'string' && (KEY_SCOPES as readonly string[]).includes(value);
}

/** The longest name a named key may have, in characters. */
export const KEY_NAME_MAX = 64;

/**
 * A named key's name, trimmed, or undefined when it is not one: 1 to KEY_NAME_MAX characters, no
 * control characters (it is shown in tables and terminals).
 */
export function keyName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const name = value.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (name === '' || [...name].length > KEY_NAME_MAX || /[\u0000-\u001f\u007f]/.test(name)) return undefined;
  return name;
}

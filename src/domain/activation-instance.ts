/**
 * What an activation's `instance` may be: whatever names one installation to the seller's software
 * (a domain, a machine id), 1 to MAX_INSTANCE_LENGTH characters once trimmed, with no control
 * characters (it is shown in the seller's workspace and sent in webhooks as it is).
 */
export const MAX_INSTANCE_LENGTH = 255;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f]/;

/** True when `text` (already trimmed) is a valid instance. */
export function isActivationInstance(text: string): boolean {
  if (text.length === 0 || CONTROL.test(text)) return false;
  // Characters, not UTF-16 units: an emoji counts once.
  let count = 0;
  for (const _ of text) if (++count > MAX_INSTANCE_LENGTH) return false;
  return true;
}

/** The most instances an item's limit may allow. */
export const MAX_ACTIVATION_LIMIT = 1_000_000;

export const INSTANCE_RULE = `1 to ${MAX_INSTANCE_LENGTH} characters, no control characters`;

import { en } from './en.js';
import { pt } from './pt.js';
import type { VariantTexts } from './variant-texts.js';

/** The languages a variant may be configured with. */
export const languages = { en, pt } as const satisfies Record<string, VariantTexts>;

export type Lang = keyof typeof languages;

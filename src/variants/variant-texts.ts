import type { ErrorKind } from './error-kinds.js';

/** Everything a language variant says: its status words and one message per error kind. */
export interface VariantTexts {
  readonly lang: string;
  readonly statusOk: string;
  readonly statusError: string;
  readonly messages: Readonly<Record<ErrorKind, string>>;
  /** The sentences for a bad parameter, naming it. */
  readonly parameter: {
    readonly missing: (name: string) => string;
    readonly malformed: (name: string, expectation: string) => string;
    readonly conflicting: (name: string) => string;
  };
  /** How the malformed-parameter sentences describe what was expected. */
  readonly expectations: {
    readonly positiveInteger: string;
    /** An activation's instance (see src/domain/activation-instance.ts). */
    readonly instance: string;
    readonly text: string;
    /** A whole number within bounds, both included. */
    readonly wholeNumber: (min: number, max: number) => string;
    /** A text of at most `max` characters. */
    readonly shortText: (max: number) => string;
    /** What a `Signature-Nonce` header may hold. */
    readonly nonce: string;
  };
}

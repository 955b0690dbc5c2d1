/** Largest request body accepted (SPEC 2.1): 64 KiB. */
export const BODY_LIMIT = 64 * 1024;

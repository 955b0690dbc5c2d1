import { type ActivationCount, type ActivationRow, activationView } from '../store/activations/activation-store.js';
import type { VariantRuntime } from '../variants/variant-runtime.js';

/**
 * The parts of the activation endpoints' answers cut from, or added to, validation's cached answer
 * of the contract's shape, `{"status":…,"data":{"purchase":P}}`: the Purchase is exactly validation's.
 */

/** The Purchase inside a validation answer. */
export function purchaseOf(answer: Buffer, variant: VariantRuntime): Buffer {
  const head = Buffer.byteLength(`{"status":${JSON.stringify(variant.config.texts.statusOk)},"data":{"purchase":`);
  return answer.subarray(head, answer.length - 2);
}

/** `{used, limit}`; limit null when the item has none. */
export const countJson = (count: ActivationCount) => JSON.stringify({ used: count.used, limit: count.limit });

/** Validation's answer with `activation` after `purchase`: the instance's activation, or null. */
export function withActivation(answer: Buffer, activation: ActivationRow | undefined): Buffer {
  const view = activation === undefined ? 'null' : JSON.stringify(activationView(activation));
  // The answer ends with the `data` object's brace and the envelope's.
  return Buffer.concat([answer.subarray(0, answer.length - 2), Buffer.from(`,"activation":${view}}}`)]);
}

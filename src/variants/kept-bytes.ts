/**
 * Answers are sent as bytes: Fastify then neither measures a string's UTF-8 length nor has Node
 * encode it again on write, and cached parts are encoded once, when cached.
 */

/**
 * The UTF-8 bytes of a text that will be kept (cached or prebuilt). Small `Buffer.from` results
 * are slices of a shared 8 KiB pool, and a long-lived slice keeps its whole slab alive.
 */
export function keptBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

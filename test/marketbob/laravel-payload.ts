import { createCipheriv, createHmac, randomBytes } from 'node:crypto';

/** A fresh APP_KEY as Laravel's `key:generate` writes it. */
export const newAppKey = (): string => `base64:${randomBytes(32).toString('base64')}`;

/**
 * What Laravel's `encrypt($text)` stores, made the way Laravel makes it (Illuminate\Encryption\
 * Encrypter, AES-256-CBC): the value serialized, enciphered under a random iv, the MAC over the
 * base64 iv and value, all as base64 JSON with an empty tag.
 */
export function laravelEncrypt(text: string, appKey: string, options: { serialized?: string } = {}): string {
  const key = Buffer.from(appKey.slice('base64:'.length), 'base64');
  const iv = randomBytes(16);
  const plain = options.serialized ?? `s:${Buffer.byteLength(text, 'utf8')}:"${text}";`;
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const value = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
  const ivText = iv.toString('base64');
  const mac = createHmac('sha256', key)
    .update(ivText + value)
    .digest('hex');
  return Buffer.from(JSON.stringify({ iv: ivText, value, mac, tag: '' })).toString('base64');
}

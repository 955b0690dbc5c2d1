/**
 * The Web Crypto calls the client makes (webhook signatures, signed answers, license tokens),
 * typed here so that the package needs no DOM or Node types.
 */
export interface Subtle {
    importKey(format: 'raw' | 'jwk', key: Uint8Array | object, algorithm: object, extractable: boolean, usages: string[]): Promise<unknown>;
    sign(algorithm: string, key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
    verify(algorithm: object, key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
    digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer>;
}
/** The runtime's Web Crypto: the global one, or Node 18's (not a global there). */
export declare function subtle(): Promise<Subtle>;

/** The runtime's Web Crypto: the global one, or Node 18's (not a global there). */
export async function subtle() {
    const global = globalThis.crypto?.subtle;
    if (global)
        return global;
    const specifier = 'node:crypto';
    return (await import(specifier)).webcrypto.subtle;
}

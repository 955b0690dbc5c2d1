import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SigningKeys } from '../signing/signing-keys.js';
import type { VariantResolver } from '../variants/variant-runtime.js';

export interface JwksPluginOptions {
  readonly resolver: VariantResolver;
  readonly signingKeys: SigningKeys;
}

/**
 * The public keys that verify the API's answers and license tokens, as a JWK Set (RFC 7517), at
 * `{base}/.well-known/jwks.json` of every variant: the same keys for all, as one deployment signs.
 * Cached briefly: a client that keeps them should fetch them again when it meets an unknown `kid`.
 */
export async function jwksPlugin(app: FastifyInstance, { resolver, signingKeys }: JwksPluginOptions): Promise<void> {
  for (const prefix of resolver.prefixes) {
    app.get(`${prefix}/.well-known/jwks.json`, (request: FastifyRequest, reply) => {
      if (!resolver.forPrefix(prefix, request.host)) return reply.callNotFound();
      return reply
        .code(200)
        .type('application/jwk-set+json; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .send(signingKeys.jwks);
    });
  }
}

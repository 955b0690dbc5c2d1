import { createHash, createPublicKey, verify } from 'node:crypto';

/**
 * An RFC 9421 verifier of a response signature written in the test, from the RFC, with node:crypto
 * only: it shares no code with the server's signer, so that the two agreeing means something.
 */

/** A JWK of the set at `{base}/.well-known/jwks.json`. */
export interface Jwk {
  readonly kty: string;
  readonly crv: string;
  readonly x: string;
  readonly kid: string;
}

/** What a signed response is checked against: the request as the client sent it, the answer as it came. */
export interface SignedExchange {
  readonly method: string;
  /** The request target as sent: path and query. */
  readonly target: string;
  readonly nonce?: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | number | undefined>>;
  readonly body: Buffer;
}

/** An RFC 8941 inner list with its parameters, as `Signature-Input` has it: `sig1=("a" "b";req);created=1;keyid="k"`. */
export function parseSignatureInput(header: string): {
  label: string;
  components: { name: string; req: boolean }[];
  params: Record<string, string | number>;
  raw: string;
} {
  const match = /^([a-z][a-z0-9_.*-]*)=(\((.*)\)(.*))$/.exec(header);
  if (!match) throw new Error(`not a signature input: ${header}`);
  const [, label, raw, inner, paramText] = match as unknown as [string, string, string, string, string];
  const components = [...inner.matchAll(/"([^"]+)"(;req)?/g)].map((m) => ({ name: m[1] as string, req: !!m[2] }));
  const params: Record<string, string | number> = {};
  for (const param of paramText.matchAll(/;([a-z]+)=("((?:[^"\\]|\\.)*)"|\d+)/g)) {
    params[param[1] as string] = param[3] !== undefined ? param[3].replace(/\\(.)/g, '$1') : Number(param[2]);
  }
  return { label, components, params, raw };
}

function componentValue(name: string, req: boolean, exchange: SignedExchange): string {
  const queryAt = exchange.target.indexOf('?');
  const path = queryAt === -1 ? exchange.target : exchange.target.slice(0, queryAt);
  const query = queryAt === -1 ? '?' : exchange.target.slice(queryAt);
  if (name === '@status' && !req) return String(exchange.status);
  if (name === '@method' && req) return exchange.method.toUpperCase();
  if (name === '@path' && req) return path;
  if (name === '@query' && req) return query;
  if (name === 'signature-nonce' && req) {
    if (exchange.nonce === undefined) throw new Error('a nonce is covered, but the request sent none');
    return exchange.nonce;
  }
  if (!name.startsWith('@') && !req) {
    const value = exchange.headers[name];
    if (value === undefined) throw new Error(`covered header ${name} is missing`);
    return String(value).trim();
  }
  throw new Error(`unexpected component ${name}${req ? ';req' : ''}`);
}

/**
 * Checks the exchange's signature with the key of its `keyid` among `keys`, and the body against
 * `Content-Digest`; returns the signature's parameters, or throws saying what is wrong.
 */
export function verifySignedResponse(exchange: SignedExchange, keys: readonly Jwk[]): Record<string, string | number> {
  const digest = String(exchange.headers['content-digest']);
  const expected = `sha-256=:${createHash('sha256').update(exchange.body).digest('base64')}:`;
  if (digest !== expected) throw new Error(`content-digest ${digest} is not the body's ${expected}`);
  const input = parseSignatureInput(String(exchange.headers['signature-input']));
  const signatureMatch = new RegExp(`^${input.label}=:([A-Za-z0-9+/=]+):$`).exec(String(exchange.headers.signature));
  if (!signatureMatch) throw new Error('no signature under the input label');
  const key = keys.find((candidate) => candidate.kid === input.params.keyid);
  if (!key) throw new Error(`no published key ${input.params.keyid}`);
  if (input.params.alg !== 'ed25519') throw new Error(`alg ${input.params.alg}`);
  const lines = input.components.map(
    ({ name, req }) => `"${name}"${req ? ';req' : ''}: ${componentValue(name, req, exchange)}`,
  );
  lines.push(`"@signature-params": ${input.raw}`);
  const publicKey = createPublicKey({ key: { kty: key.kty, crv: key.crv, x: key.x }, format: 'jwk' });
  const ok = verify(null, Buffer.from(lines.join('\n')), publicKey, Buffer.from(signatureMatch[1] as string, 'base64'));
  if (!ok) throw new Error('the signature does not verify');
  return input.params;
}

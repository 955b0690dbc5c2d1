import ipaddr from 'ipaddr.js';

/**
 * The id a client is counted under, from its address (`request.ip`, after trustProxy): an IPv4
 * address as is (also when it comes IPv4-mapped, `::ffff:192.0.2.1`), an IPv6 address by its /64,
 * since one home or server is handed a whole /64 and could otherwise take a fresh budget per
 * address. Anything unparsable is counted under its own text.
 */
export function clientIdOf(address: string): string {
  // Node writes an IPv4 peer as a dotted quad: the common case needs no parsing.
  if (!address.includes(':')) return address;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return address;
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

/** Proxy names Fastify's trustProxy (proxy-addr) knows besides addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Why a trustProxy entry would not work, or undefined when it is an IP address, a CIDR
 * (`10.0.0.0/8`, `2001:db8::/32`) or one of proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`).
 */
export function trustedProxyProblem(entry: string): string | undefined {
  if (PROXY_RANGE_NAMES.has(entry)) return undefined;
  const [address = '', bits, ...rest] = entry.split('/');
  // Four-part decimal only: ipaddr.js also reads legacy forms such as `10.1` as IPv4.
  const addressOk = ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address);
  if (bits !== undefined) {
    return addressOk && rest.length === 0 && /^\d{1,3}$/.test(bits) && ipaddr.isValidCIDR(entry)
      ? undefined
      : `"${entry}" is not a valid CIDR (such as 10.0.0.0/8 or 2001:db8::/32)`;
  }
  return addressOk ? undefined : `"${entry}" is not an IP address, a CIDR, or loopback/linklocal/uniquelocal`;
}

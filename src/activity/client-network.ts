import { createHmac, hkdfSync } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { KeyMaterial } from '../keys/server-secret.js';

/**
 * The network a client address belongs to, as activity counts it: an IPv4 address by its /24, an
 * IPv6 address by its /48 (a site's usual allocation), an IPv4-mapped IPv6 address as IPv4.
 * Anything unparsable stands for itself. Only a keyed hash of it is ever kept (see below).
 */
export function networkOf(address: string): string {
  // Node writes an IPv4 peer as a dotted quad: the common case needs no parsing.
  if (!address.includes(':')) {
    const lastDot = address.lastIndexOf('.');
    return lastDot === -1 ? address : `${address.slice(0, lastDot)}.0/24`;
  }
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return address;
  }
  if (parsed.kind() === 'ipv4') return networkOf(parsed.toString());
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return networkOf(v6.toIPv4Address().toString());
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 3), 0, 0, 0, 0, 0]).toString()}/48`;
}

/**
 * The key networks are hashed with: derived from the server secret (through the key digest's key,
 * for a purpose of its own), so that the same network hashes alike on every instance and across
 * days, and the hashes mean nothing to whoever lacks the secret.
 */
export function networkKeyOf(keys: KeyMaterial): Buffer {
  return Buffer.from(hkdfSync('sha256', keys.digestKey, 'marketplace-api', 'purchase-activity-network', 32));
}

/** Addresses whose hashes are remembered, at most (a bounded memory); forgotten all at once when full. */
const REMEMBERED_ADDRESSES = 65_536;

/**
 * Maps a client address to its network's 32-bit keyed hash (HMAC-SHA256, first four bytes). The
 * hot path asks once per validation: the answers of recent addresses are remembered, so that most
 * validations cost one map lookup rather than a parse and an HMAC.
 */
export function createNetworkHasher(key: Buffer): (address: string) => number {
  let remembered = new Map<string, number>();
  return (address) => {
    let hash = remembered.get(address);
    if (hash === undefined) {
      hash = createHmac('sha256', key).update(networkOf(address)).digest().readUInt32BE(0);
      if (remembered.size >= REMEMBERED_ADDRESSES) remembered = new Map();
      remembered.set(address, hash);
    }
    return hash;
  };
}

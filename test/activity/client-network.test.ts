import { describe, expect, it } from 'vitest';
import { createNetworkHasher, networkKeyOf, networkOf } from '../../src/activity/client-network.js';
import { deriveKeyMaterial } from '../../src/keys/server-secret.js';

describe('networkOf', () => {
  it.each([
    ['198.51.100.7', '198.51.100.0/24'],
    ['198.51.100.250', '198.51.100.0/24'],
    ['203.0.113.1', '203.0.113.0/24'],
    ['::ffff:203.0.113.99', '203.0.113.0/24'],
    ['::FFFF:cb00:7163', '203.0.113.0/24'],
    ['2001:db8:1:2::1', '2001:db8:1::/48'],
    ['2001:0db8:0001:ffff:0:0:0:9', '2001:db8:1::/48'],
    ['2001:db8::1', '2001:db8::/48'],
    ['::1', '::/48'],
    ['not an address', 'not an address'],
  ])('%s is in %s', (address, network) => {
    expect(networkOf(address)).toBe(network);
  });
});

describe('createNetworkHasher', () => {
  const keys = deriveKeyMaterial('a server secret of at least 32 characters, for tests');
  const other = deriveKeyMaterial('another server secret of at least 32 characters, too');

  it('hashes a network alike for each of its addresses, and networks apart', () => {
    const hash = createNetworkHasher(networkKeyOf(keys));
    expect(hash('198.51.100.1')).toBe(hash('198.51.100.200'));
    expect(hash('2001:db8:7::1')).toBe(hash('2001:db8:7:ffff::2'));
    expect(hash('198.51.100.1')).not.toBe(hash('203.0.113.1'));
    expect(Number.isInteger(hash('198.51.100.1')) && hash('198.51.100.1') >= 0).toBe(true);
  });

  it('hashes with the server secret: another secret, other hashes; the same secret on another instance, the same', () => {
    const one = createNetworkHasher(networkKeyOf(keys));
    const again = createNetworkHasher(
      networkKeyOf(deriveKeyMaterial('a server secret of at least 32 characters, for tests')),
    );
    const elsewhere = createNetworkHasher(networkKeyOf(other));
    expect(again('198.51.100.1')).toBe(one('198.51.100.1'));
    expect(elsewhere('198.51.100.1')).not.toBe(one('198.51.100.1'));
  });
});

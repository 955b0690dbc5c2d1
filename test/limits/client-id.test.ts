import { describe, expect, it } from 'vitest';
import { clientIdOf, trustedProxyProblem } from '../../src/limits/client-id.js';

describe('clientIdOf', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::9', '2001:db8:1:3::/64'],
    ['::1', '::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
  ])('counts %s as %s', (address, id) => {
    expect(clientIdOf(address)).toBe(id);
  });
});

describe('trustedProxyProblem', () => {
  it.each(['10.0.0.0/8', '192.0.2.1', '2001:db8::/32', '::1', '::/0', 'loopback', 'linklocal', 'uniquelocal'])(
    'accepts %s',
    (entry) => {
      expect(trustedProxyProblem(entry)).toBeUndefined();
    },
  );

  it.each([
    ['10.0.0.0/33', '"10.0.0.0/33" is not a valid CIDR (such as 10.0.0.0/8 or 2001:db8::/32)'],
    ['fe80::/129', '"fe80::/129" is not a valid CIDR (such as 10.0.0.0/8 or 2001:db8::/32)'],
    ['10.0.0.0/x', '"10.0.0.0/x" is not a valid CIDR (such as 10.0.0.0/8 or 2001:db8::/32)'],
    ['10.1/8', '"10.1/8" is not a valid CIDR (such as 10.0.0.0/8 or 2001:db8::/32)'],
    ['10.1', '"10.1" is not an IP address, a CIDR, or loopback/linklocal/uniquelocal'],
    ['proxy.example.com', '"proxy.example.com" is not an IP address, a CIDR, or loopback/linklocal/uniquelocal'],
  ])('refuses %s', (entry, problem) => {
    expect(trustedProxyProblem(entry)).toBe(problem);
  });
});

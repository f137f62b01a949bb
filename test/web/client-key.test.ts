import net from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { throttleKey } from '../../src/web/client-key.ts';

describe('throttleKey', () => {
  it('keys IPv4 by the address and an IPv4-mapped IPv6 address by its IPv4 form', () => {
    expect(throttleKey('203.0.113.7')).toBe('203.0.113.7');
    expect(throttleKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('keys IPv6 by its /64, however the address is written', () => {
    expect(throttleKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(throttleKey('2001:0DB8:0001:0002::ffff')).toBe('2001:db8:1:2::/64');
    expect(throttleKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(throttleKey('::1')).toBe('0:0:0:0::/64');
    expect(throttleKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(throttleKey('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
  });

  // The oracle: every address in one /64 (any interface id, any spelling node prints) has one key, and
  // addresses in different /64s never share one.
  const group = fc.integer({ min: 0, max: 0xffff });
  const groups = fc.array(group, { minLength: 8, maxLength: 8 });
  const spell = (g: number[]) => {
    const full = g.map((x) => x.toString(16)).join(':');
    // Node's own canonical form (zero runs compressed) is another spelling of the same address.
    return [full, new net.SocketAddress({ address: full, family: 'ipv6' }).address];
  };
  it('gives every spelling of every address in one /64 the same key, and different /64s different keys', () => {
    fc.assert(
      fc.property(groups, groups, (a, b) => {
        // ::ffff:0:0/96 is IPv4 space, keyed as IPv4 on purpose.
        const mapped = (g: number[]) => g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
        fc.pre(!mapped(a) && !mapped(b));
        const sameNet = [...a.slice(0, 4), ...b.slice(4)];
        const keys = [...spell(a), ...spell(sameNet)].map(throttleKey);
        expect(new Set(keys).size).toBe(1);
        const samePrefix = a.slice(0, 4).every((x, i) => x === b[i]);
        expect(throttleKey(spell(b)[1]!) === keys[0]).toBe(samePrefix);
      }),
    );
  });
});

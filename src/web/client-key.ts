import net from 'node:net';

/**
 * The key a throttle counts a client under. An IPv4 address is one client. An IPv6 address is keyed by its
 * /64: one subscriber is usually given a whole /64 and can pick any of its 2^64 addresses per request, so
 * keying on the full address would let one client multiply every per-client limit at will.
 */
export function throttleKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!net.isIPv6(address)) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, lower-case and without leading zeros. */
function ipv6Groups(address: string): string[] {
  const withoutZone = address.split('%')[0] ?? address;
  // An embedded IPv4 tail (::1.2.3.4) stands for the last two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(withoutZone);
  let text = withoutZone;
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${withoutZone.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16).toString(16));
}

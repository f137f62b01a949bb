import net from 'node:net';

/**
 * Whether a listen address (HOST) only accepts connections from this machine. Decides which defaults are
 * safe: on loopback nobody else can reach the development outbox or a plain-http session cookie.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

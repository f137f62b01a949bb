import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors/app-error.ts';

/**
 * Where a webhook may be sent (issue 31): an https URL whose host resolves only to public unicast
 * addresses, so a customer cannot make our servers call into our own network. `allowPrivate` (tests, and
 * operators whose receivers are internal) also admits http and loopback, private and link-local addresses.
 * Checked when an endpoint is added and again at every delivery, on the very address the request then
 * connects to, so a name that later resolves elsewhere (DNS rebinding) is refused too.
 */
export interface UrlPolicy {
  allowPrivate: boolean;
}

export const MAX_URL_LENGTH = 2_000;

/** The URL's shape: https (or http when private targets are allowed), no credentials, no fragment. */
export function parseEndpointUrl(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('is not a URL');
  }
  if (raw.length > MAX_URL_LENGTH) throw invalid(`is longer than ${MAX_URL_LENGTH} characters`);
  const schemes = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw invalid('must be an https URL');
  if (url.username || url.password) throw invalid('must not carry a user name or password');
  if (url.hash) throw invalid('must not have a fragment');
  return url;
}

function invalid(why: string): AppError {
  return new AppError('validation_failed', `url ${why}`, [
    { loc: ['body', 'url'], param: 'url', msg: `the endpoint URL ${why}`, type: 'invalid_webhook_url' },
  ]);
}

/** Public unicast only: ipaddr's range names every special-purpose block (loopback, private, ...). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

/** The address to connect to: the first the host resolves to, when every one of them is allowed. */
export async function vettedAddress(
  url: URL,
  policy: UrlPolicy,
): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const found = net.isIP(host)
    ? [{ address: host, family: net.isIP(host) }]
    : await dns.lookup(host, { all: true, verbatim: true }).catch(() => {
        throw new AppError('validation_failed', `url host ${host} does not resolve`, [
          {
            loc: ['body', 'url'],
            param: 'url',
            msg: `the host ${host} does not resolve`,
            type: 'invalid_webhook_url',
          },
        ]);
      });
  if (found.length === 0) throw invalid(`host ${host} has no address`);
  if (!policy.allowPrivate) {
    const bad = found.find((a) => !isPublicAddress(a.address));
    if (bad) throw invalid(`resolves to ${bad.address}, which is not a public address`);
  }
  return found[0]!;
}

import type { FastifyRequest } from 'fastify';
import { isLoopbackHost } from '../http/loopback.ts';

/**
 * DNS-rebinding defence the MCP transport spec asks for: a browser page on another site must not reach
 * the endpoint through a name that resolves to it. Agents send no Origin; a browser always does, so an
 * Origin is accepted only when listed. The Host name is checked against the configured public names, or,
 * when none are configured and the server listens on loopback, against the loopback names.
 */
export interface RequestGuardOptions {
  allowedOrigins: readonly string[];
  allowedHosts: readonly string[];
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Why the request is refused (a 403 text), or null when it may proceed. */
export function refusal(request: FastifyRequest, opts: RequestGuardOptions): string | null {
  const origin = request.headers.origin;
  if (origin !== undefined && !opts.allowedOrigins.includes(origin)) {
    return `origin ${origin} is not allowed to call /mcp`;
  }
  const host = request.hostname.toLowerCase();
  if (opts.allowedHosts.length > 0) {
    if (!opts.allowedHosts.some((h) => h.toLowerCase() === host)) return `host ${host} is not served here`;
  } else if (isLoopbackHost(request.socket.localAddress ?? '') && !LOOPBACK_NAMES.has(host)) {
    return `host ${host} is not served on a loopback address`;
  }
  return null;
}

import crypto from 'node:crypto';
import net from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Identity, Session } from '../identity/identity.ts';
import type { AuthorizationServer } from '../oauth/authorization-server.ts';
import type { MailWorker } from '../identity/mail-worker.ts';
import type { PaymentProvider } from '../identity/payments.ts';
import type { Operations } from '../services/operations.ts';
import type { Wallet } from '../wallet/wallet.ts';
import type { Watchlists } from '../watchlists/watchlists.ts';
import type { Deliverer } from '../webhooks/deliverer.ts';
import type { Endpoints } from '../webhooks/endpoints.ts';
import { throttleKey } from './client-key.ts';
import { parseCookies, serializeCookie } from './cookies.ts';

/** What the dashboard plugin is built from (src/web/from-config.ts makes it from the config). */
export interface WebDeps {
  wallet: Wallet;
  identity: Identity;
  /** Sends what identity queued; a page kicks it after queueing, so mail leaves at once, not at the next poll. */
  mail: MailWorker;
  payments: PaymentProvider;
  /**
   * Base of e-mailed links (REGDATA_PUBLIC_URL). null only on a loopback server: links then point at the
   * address the request reached, never at its Host header, which a sender chooses (reset poisoning).
   */
  publicUrl: string | null;
  /** Secure cookies, named with the __Host- prefix (no Domain, Path=/) so a sibling host cannot set them. */
  cookieSecure: boolean;
  /** Development mode (a loopback host only): MCP clients' metadata documents may be on loopback too. */
  oauthLoopbackClients?: boolean;
}

export interface WebPluginOptions extends WebDeps {
  ops: Operations;
  /** Watchlists (issue 31), as the REST routes get them; absent: the Watchlists page says so. */
  watchlists?: Watchlists;
  /** Webhook endpoints and their deliverer (issue 31), as REST gets them; absent: the page says so. */
  webhooks?: { endpoints: Endpoints; deliverer: Deliverer };
  /** The MCP authorization server, whose sign-in and consent pages are the dashboard's (oauth-pages.ts). */
  oauth?: AuthorizationServer;
}

export const SESSION_COOKIE = 'rd_session';
/** Anonymous forms' CSRF token (double submit); a signed-in request uses its session's token instead. */
export const ANON_CSRF_COOKIE = 'rd_csrf';

/**
 * A cookie's name as sent: `__Host-` + name when Secure. Browsers accept a `__Host-` cookie only with Secure,
 * Path=/ and no Domain, so on plain-http loopback (development) the plain name is used.
 */
export function cookieName(deps: Pick<WebDeps, 'cookieSecure'>, name: string): string {
  return deps.cookieSecure ? `__Host-${name}` : name;
}
export const CSRF_HEADER = 'x-csrf-token';

export interface WebContext {
  session: Session | null;
  sessionToken: string | undefined;
  /** The token forms and the search page must send back. */
  csrfToken: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    web: WebContext;
  }
}

/** Resolves the session cookie and makes sure an anonymous visitor has a CSRF cookie. */
export async function loadContext(
  deps: WebDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<WebContext> {
  const cookies = parseCookies(request.headers.cookie);
  const sessionToken = cookies[cookieName(deps, SESSION_COOKIE)];
  const session = await deps.identity.session(sessionToken);
  if (sessionToken && !session) {
    // An unknown or expired token (or one planted by someone else) is dropped, never adopted.
    appendCookie(reply, clearCookie(deps, SESSION_COOKIE));
  }
  let csrfToken = session?.csrfToken;
  if (!csrfToken) {
    csrfToken = cookies[cookieName(deps, ANON_CSRF_COOKIE)];
    if (!csrfToken || !/^[A-Za-z0-9_-]{43}$/.test(csrfToken)) {
      csrfToken = crypto.randomBytes(32).toString('base64url');
      appendCookie(
        reply,
        serializeCookie(cookieName(deps, ANON_CSRF_COOKIE), csrfToken, {
          secure: deps.cookieSecure,
          sameSite: 'Strict',
        }),
      );
    }
  }
  return { session, sessionToken, csrfToken };
}

/**
 * CSRF for every state-changing request: a same-origin Origin (when the browser sends one) and the token,
 * from the form field `_csrf` or the X-CSRF-Token header, equal in constant time to the expected one.
 * SameSite=Lax on the session cookie is a second layer, not the only one.
 */
export function csrfOk(request: FastifyRequest, submitted: unknown): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `${request.protocol}://${request.host}`) return false;
  if (typeof submitted !== 'string') return false;
  const a = Buffer.from(submitted);
  const b = Buffer.from(request.web.csrfToken);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export function appendCookie(reply: FastifyReply, cookie: string): void {
  const prev = reply.getHeader('set-cookie');
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev.map(String) : [String(prev)];
  reply.header('set-cookie', [...list, cookie]);
}

export function clearCookie(deps: WebDeps, name: string): string {
  return serializeCookie(cookieName(deps, name), '', {
    secure: deps.cookieSecure,
    sameSite: 'Lax',
    maxAgeSeconds: 0,
  });
}

export function sessionCookie(deps: WebDeps, token: string, expiresAt: number): string {
  return serializeCookie(cookieName(deps, SESSION_COOKIE), token, {
    secure: deps.cookieSecure,
    sameSite: 'Lax',
    maxAgeSeconds: (expiresAt - Date.now()) / 1000,
  });
}

/** The origin of e-mailed links: the configured one, else the loopback address the request came in on. */
export function baseUrl(deps: WebDeps, request: FastifyRequest): string {
  if (deps.publicUrl) return deps.publicUrl;
  const { localAddress, localPort } = request.socket;
  if (!localAddress || !localPort) return 'http://localhost';
  const host = localAddress.replace(/^::ffff:/, '');
  return `http://${net.isIPv6(host) ? `[${host}]` : host}:${localPort}`;
}

/**
 * The client address for throttles and the sign-in delays: the socket's, or behind proxies named by
 * REGDATA_TRUST_PROXY the address they forwarded (fastify's trustProxy resolves request.ip); an IPv6
 * client is counted by its /64 (client-key.ts).
 */
export function clientAddress(request: FastifyRequest): string {
  return request.ip ? throttleKey(request.ip) : 'unknown';
}

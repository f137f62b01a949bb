import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Identity, Session } from '../identity/identity.ts';
import type { Mailer } from '../identity/mailer.ts';
import type { PaymentProvider } from '../identity/payments.ts';
import type { Operations } from '../services/operations.ts';
import type { Wallet } from '../wallet/wallet.ts';
import { parseCookies, serializeCookie } from './cookies.ts';

/** What the dashboard plugin is built from (src/web/from-config.ts makes it from the config). */
export interface WebDeps {
  wallet: Wallet;
  identity: Identity;
  mailer: Mailer;
  payments: PaymentProvider;
  /** Base of e-mailed links; null = the request's own origin. */
  publicUrl: string | null;
  cookieSecure: boolean;
}

export interface WebPluginOptions extends WebDeps {
  ops: Operations;
}

export const SESSION_COOKIE = 'rd_session';
/** Anonymous forms' CSRF token (double submit); a signed-in request uses its session's token instead. */
export const ANON_CSRF_COOKIE = 'rd_csrf';
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
export function loadContext(deps: WebDeps, request: FastifyRequest, reply: FastifyReply): WebContext {
  const cookies = parseCookies(request.headers.cookie);
  const sessionToken = cookies[SESSION_COOKIE];
  const session = deps.identity.session(sessionToken);
  if (sessionToken && !session) {
    // An unknown or expired token (or one planted by someone else) is dropped, never adopted.
    appendCookie(reply, clearCookie(deps, SESSION_COOKIE));
  }
  let csrfToken = session?.csrfToken;
  if (!csrfToken) {
    csrfToken = cookies[ANON_CSRF_COOKIE];
    if (!csrfToken || !/^[A-Za-z0-9_-]{43}$/.test(csrfToken)) {
      csrfToken = crypto.randomBytes(32).toString('base64url');
      appendCookie(
        reply,
        serializeCookie(ANON_CSRF_COOKIE, csrfToken, { secure: deps.cookieSecure, sameSite: 'Strict' }),
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
  return serializeCookie(name, '', { secure: deps.cookieSecure, sameSite: 'Lax', maxAgeSeconds: 0 });
}

export function sessionCookie(deps: WebDeps, token: string, expiresAt: number): string {
  return serializeCookie(SESSION_COOKIE, token, {
    secure: deps.cookieSecure,
    sameSite: 'Lax',
    maxAgeSeconds: (expiresAt - Date.now()) / 1000,
  });
}

export function baseUrl(deps: WebDeps, request: FastifyRequest): string {
  return deps.publicUrl ?? `${request.protocol}://${request.host}`;
}

/** The client address for the sign-in lockout (the socket's; a proxy in front would set trustProxy). */
export function clientAddress(request: FastifyRequest): string {
  return request.ip || 'unknown';
}

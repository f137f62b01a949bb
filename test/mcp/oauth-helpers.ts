import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { loadConfig } from '../../src/config.ts';
import { Identity } from '../../src/identity/identity.ts';
import { startServer, type StartedServer } from '../../src/server.ts';

/** The OAuth client's callback address; nothing listens there: the browser stops at the redirect. */
export const REDIRECT = 'http://127.0.0.1:9/callback';
export const PASSWORD = 'a long enough password';

/**
 * What the SDK client keeps between runs (in memory here; an agent keeps it on disk). `redirect` is the
 * client's callback address, `clientName` the name it registers with (the consent page shows it). With
 * `clientMetadataUrl` its id is that URL (a client ID metadata document) where the server supports it.
 */
export function memoryProvider({
  redirect = REDIRECT,
  clientName = 'Test agent',
  clientMetadataUrl,
}: { redirect?: string; clientName?: string; clientMetadataUrl?: string } = {}) {
  const kept: Record<string, unknown> = {};
  let authorizationUrl: URL | null = null;
  const provider: OAuthClientProvider = {
    ...(clientMetadataUrl !== undefined && { clientMetadataUrl }),
    get redirectUrl() {
      return redirect;
    },
    get clientMetadata() {
      return {
        client_name: clientName,
        redirect_uris: [redirect],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    clientInformation: () => kept['client'] as never,
    saveClientInformation: (c) => void (kept['client'] = c),
    tokens: () => kept['tokens'] as never,
    saveTokens: (t) => void (kept['tokens'] = t),
    redirectToAuthorization: (url) => void (authorizationUrl = url),
    saveCodeVerifier: (v) => void (kept['verifier'] = v),
    codeVerifier: () => kept['verifier'] as string,
    saveDiscoveryState: (s) => void (kept['discovery'] = s),
    discoveryState: () => kept['discovery'] as never,
  };
  return { provider, kept, authorizationUrl: () => authorizationUrl };
}

/** A browser: follows redirects by hand, keeps cookies by name, and submits the page's form. */
export class Browser {
  readonly jar = new Map<string, string>();
  requests = 0;

  async go(url: string, form?: Record<string, string>) {
    this.requests++;
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form && { body: new URLSearchParams(form).toString() }),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const at = pair!.indexOf('=');
      this.jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = res.headers.get('location');
    return {
      res,
      next: location ? new URL(location, url).href : null,
      body: location ? '' : await res.text(),
    };
  }

  /**
   * From the authorization URL to the client's callback (`redirect`, where the browser stops): sign in, then
   * answer the consent page.
   */
  async authorize(
    start: URL,
    email: string,
    consent: Record<string, string> = { metered: 'yes' },
    redirect = REDIRECT,
  ) {
    let url = start.href;
    const pages: string[] = [];
    for (let hop = 0; hop < 20; hop++) {
      if (url.startsWith(redirect)) return { callback: new URL(url), pages };
      const { next, body, res } = await this.go(url);
      if (next) {
        url = next;
        continue;
      }
      if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}: ${body.slice(0, 300)}`);
      // As a browser shows it: HTML collapses runs of white space (line breaks of the template) to one.
      pages.push(body.replace(/\s+/g, ' '));
      // The page's own form (the header of a signed-in page has the sign-out form too).
      const action = /<form method="post" action="(\/oauth\/interaction\/[^"]+)"/.exec(body)?.[1];
      const csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
      if (!action) throw new Error(`${url}: no sign-in or consent form: ${body.slice(0, 500)}`);
      const form: Record<string, string> = action.endsWith('/login')
        ? { email, password: PASSWORD, _csrf: csrf! }
        : { decision: 'approve', ...consent, _csrf: csrf! };
      const posted = await this.go(new URL(action, url).href, form);
      if (!posted.next) {
        const page = /<main[\s\S]*<\/main>/.exec(posted.body)?.[0] ?? posted.body.slice(0, 300);
        throw new Error(`${action}: no redirect: ${page}`);
      }
      url = posted.next;
    }
    throw new Error('no callback after 20 hops');
  }
}

/**
 * A listening server (development mode, as `npm start`) on a copy of the world in `worldDir`, in a temp
 * folder of its own, with EE priced at `eePrice` per row and `env` over that configuration; `close` stops
 * it and removes the folder.
 */
export async function startOAuthServer(worldDir: string, eePrice: number, env: Record<string, string> = {}) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-oauth-'));
  const dataDir = path.join(tmp, 'data');
  fs.cpSync(worldDir, dataDir, { recursive: true });
  let server: StartedServer;
  try {
    server = await startServer(
      loadConfig({
        PORT: '0',
        REGDATA_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        REGDATA_DEV_MODE: 'true',
        REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
        REGDATA_PRICES: `EE=${eePrice}`,
        ...env,
      }),
      { handleSignals: false, engine: { connections: 2 } },
    );
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return {
    server,
    tmp,
    close: async () => {
      await server.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * A verified dashboard user (password PASSWORD) on pay-as-you-go, with the account's registration credits
 * (30), past the 7-day trial (whose calls are free), so calls are charged. The one write no API makes:
 * time passing.
 */
export async function signedUpUser(server: StartedServer, email: string): Promise<string> {
  const identity = new Identity({ store: server.wallet.store });
  const { verifyToken } = await identity.signUp(email, PASSWORD, '127.0.0.1');
  const verified = await identity.verifyEmail(verifyToken!);
  const { accountId } = await server.wallet.completeRegistration(email);
  await identity.linkAccount(verified.userId, accountId);
  await server.wallet.store.run('UPDATE accounts SET trial_ends_at = ? WHERE id = ?', [
    Date.now() - 1,
    accountId,
  ]);
  return accountId;
}

/** The SDK client on /mcp with what a sign-in kept. */
export async function connectClient(mcpUrl: URL, provider: OAuthClientProvider) {
  const client = new Client(
    { name: 'oauth-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  return client;
}

/** The whole sign-in: the client finds out it must sign in, the browser does, the client finishes. */
export async function signIn(
  mcpUrl: URL,
  email: string,
  opts: { consent?: Record<string, string>; clientMetadataUrl?: string; clientName?: string } = {},
) {
  const mem = memoryProvider({
    ...(opts.clientMetadataUrl !== undefined && { clientMetadataUrl: opts.clientMetadataUrl }),
    ...(opts.clientName !== undefined && { clientName: opts.clientName }),
  });
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: mem.provider });
  const first = new Client({ name: 'oauth-test', version: '1.0.0' });
  await first.connect(transport).catch((e) => {
    if (!(e instanceof UnauthorizedError)) throw e;
  });
  const browser = new Browser();
  const { callback, pages } = await browser.authorize(mem.authorizationUrl()!, email, opts.consent);
  await transport.finishAuth(callback.searchParams as never);
  return { ...mem, browser, pages };
}

/** A raw `tools/list` on `mcpUrl` with `token` as the bearer: the status and challenge a client would get. */
export function rawToolsList(mcpUrl: string | URL, token: string): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

/** The arguments each tool is called with: a small, cheap call of each, on data the small world has. */
export function toolCalls(
  code: string,
  seCode: string,
  since: string,
  watchCodes: string[],
): [string, Record<string, unknown>][] {
  return [
    ['list_countries', {}],
    ['list_filters', { country: 'EE' }],
    ['list_activities', { country: 'EE', query: 'software' }],
    ['list_locations', { country: 'EE', max_depth: 1 }],
    ['count_companies', { country: 'EE', vat_active: true }],
    ['estimate_cost', { operation: 'search', country: 'EE', page_size: 5 }],
    ['search_companies', { country: 'EE', page_size: 5, fields: ['arinimi'] }],
    ['get_company', { country: 'EE', registration_code: code }],
    ['get_company_history', { country: 'EE', registration_code: code }],
    ['get_company_workplaces', { country: 'SE', registration_code: seCode }],
    ['list_changes', { country: 'EE', since, page_size: 5 }],
    ['export_companies', { country: 'EE', vat_active: true, format: 'csv', max_rows: 10 }],
    ['manage_watchlists', { action: 'create', name: 'suppliers', country: 'EE', companies: watchCodes }],
    ['list_events', { country: 'EE' }],
  ];
}

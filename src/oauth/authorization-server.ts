import { createHmac, generateKeyPairSync } from 'node:crypto';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { AppError } from '../errors/app-error.ts';
import type { Principal } from '../wallet/types.ts';
import type { Wallet } from '../wallet/wallet.ts';
import { oauthAdapter } from './oauth-store.ts';

/**
 * The authorization server of the MCP endpoint (issue 29; the MCP authorization spec): OAuth 2.1 with
 * oidc-provider, the certified reference implementation for Node, doing every protocol part (metadata,
 * dynamic client registration, authorization code with PKCE S256, resource indicators, rotating refresh
 * tokens, revocation). Ours are the storage (the wallet database, oauth-store.ts), the sign-in and consent
 * pages (oauth-pages.ts) and what a grant means: a consented grant gets a key of the signed-in account,
 * and a token speaks for its account through that key, so a call is metered, rate-limited and revocable
 * exactly like an API-key call.
 */

/** `mcp:data`: every tool, metered ones charged to the account; `mcp:free`: the free tools only. */
export const SCOPES = { data: 'mcp:data', free: 'mcp:free' } as const;
export const SCOPE_TEXT: Record<string, string> = {
  [SCOPES.data]: 'search and read company data, charged to the account’s credits',
  [SCOPES.free]: 'use the free tools (countries, filters, activity and location trees, counts, estimates)',
  offline_access: 'stay connected until you revoke it (refresh tokens)',
};
const ACCESS_TOKEN_TTL_S = 10 * 60;
/** A client's metadata document: the draft's SHOULD-limit is 5 KB; what a public client needs fits in it. */
const CLIENT_DOCUMENT_MAX_BYTES = 5 * 1024;
/** How long a fetched document is used, within which its HTTP caching headers choose. */
const CLIENT_DOCUMENT_CACHE_S = { min: 60, max: 86_400 };
const REFRESH_TOKEN_TTL_S = 30 * 86_400;
/** Where the provider's own endpoints live; everything under it but the interaction pages is the provider's. */
export const OAUTH_PREFIX = '/oauth';
export const INTERACTION_PREFIX = `${OAUTH_PREFIX}/interaction`;
export const MCP_RESOURCE_PATH = '/mcp';

export interface AuthorizationServerOptions {
  wallet: Pick<Wallet, 'store' | 'authenticator' | 'createAccountKey' | 'accountKeys' | 'revokeAccountKey'>;
  /** Signs the interaction cookies: shared by every replica (config, or the data folder's secret). */
  secret: Buffer;
  /** Behind a proxy that sets X-Forwarded-*: the issuer is then the public origin (config.trustProxy). */
  proxy: boolean;
  /**
   * Client ID metadata documents may be served from a loopback address (development mode, which runs on a
   * loopback host only: a developer's own client). Otherwise the library's guard refuses every special-use
   * address (loopback, private, link-local) when it fetches a document.
   */
  loopbackClientDocuments?: boolean;
  clock?: () => number;
}

interface GrantRow {
  key_id: string;
  scope: string;
}

/** A client the account connected (a consented grant), as the dashboard lists it. */
export interface ConnectedClient {
  grantId: string;
  clientName: string | null;
  /** A registered client's id, or the URL of its metadata document. */
  clientId: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface ClientRow {
  grant_id: string;
  client_id: string;
  client_name: string | null;
  created_at: string;
}

export interface TokenCaller {
  principal: Principal;
  scopes: string[];
}

/**
 * One provider per issuer origin: the configured public URL, or on a loopback server the address the
 * request came in on (as e-mailed links are made), known only once a request arrives.
 */
export class AuthorizationServer {
  private readonly providers = new Map<
    string,
    { provider: Provider; handle: ReturnType<Provider['callback']> }
  >();
  // The signing key of the (unused) ID tokens: tokens here are opaque, checked against the database.
  private readonly jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
    format: 'jwk',
  });

  constructor(private readonly opts: AuthorizationServerOptions) {}

  provider(origin: string): Provider {
    return this.entry(origin).provider;
  }

  /** The provider's own request handler (its endpoints), made once per issuer, not per request. */
  handler(origin: string): ReturnType<Provider['callback']> {
    return this.entry(origin).handle;
  }

  private entry(origin: string) {
    let entry = this.providers.get(origin);
    if (!entry) {
      const provider = this.create(origin);
      entry = { provider, handle: provider.callback() };
      this.providers.set(origin, entry);
    }
    return entry;
  }

  resource(origin: string): string {
    return `${origin}${MCP_RESOURCE_PATH}`;
  }

  /** The Protected Resource Metadata of /mcp (RFC 9728). */
  resourceMetadata(origin: string) {
    return {
      resource: this.resource(origin),
      authorization_servers: [origin],
      scopes_supported: [SCOPES.data, SCOPES.free],
      bearer_methods_supported: ['header'],
      resource_name: 'regdata company registers (MCP)',
      resource_documentation: `${origin}/docs`,
    };
  }

  /**
   * The caller of an access token for /mcp at `origin`: the token must be live, issued for this resource
   * (RFC 8707: a token for another resource is refused), and its grant's key not revoked. Null otherwise.
   */
  async caller(origin: string, token: string): Promise<TokenCaller | null> {
    const provider = this.provider(origin);
    const at = await provider.AccessToken.find(token);
    if (!at || at.isExpired || at.aud !== this.resource(origin) || !at.grantId) return null;
    const grant = await this.opts.wallet.store.get<GrantRow>(
      'SELECT key_id, scope FROM oauth_grants WHERE grant_id = ?',
      [at.grantId],
    );
    if (!grant) return null;
    try {
      // Also refreshes the key's last use, which the dashboard lists for the client.
      const principal = await this.opts.wallet.authenticator.principalOf(grant.key_id);
      return { principal, scopes: (at.scope ?? '').split(' ').filter(Boolean) };
    } catch {
      // The key was revoked on the dashboard (on any replica): the grant no longer speaks for anyone.
      return null;
    }
  }

  /** The account's connected clients, newest first, with the last use of the key each acts through. */
  async clients(accountId: string): Promise<ConnectedClient[]> {
    const rows = await this.opts.wallet.store.all<GrantRow & ClientRow>(
      `SELECT grant_id, key_id, client_id, client_name, scope, created_at FROM oauth_grants
       WHERE account_id = ? ORDER BY created_at DESC, grant_id`,
      [accountId],
    );
    const keys = new Map((await this.opts.wallet.accountKeys(accountId, 'grants')).map((k) => [k.keyId, k]));
    return rows.map((r) => ({
      grantId: r.grant_id,
      clientName: r.client_name,
      clientId: r.client_id,
      scopes: r.scope.split(' ').filter(Boolean),
      createdAt: r.created_at,
      lastUsedAt: keys.get(r.key_id)?.lastUsedAt ?? null,
      revokedAt: keys.get(r.key_id)?.revokedAt ?? null,
    }));
  }

  /**
   * Disconnects a client: its key is revoked first (a token presented meanwhile already finds no one), then
   * the grant and every code and token of it are deleted from the wallet database, which every replica
   * reads. Another account's grant is not_found, as if there were none.
   */
  async revoke(accountId: string, grantId: string): Promise<void> {
    const row = await this.opts.wallet.store.get<GrantRow>(
      'SELECT key_id, scope FROM oauth_grants WHERE grant_id = ? AND account_id = ?',
      [grantId, accountId],
    );
    if (!row) throw new AppError('not_found', 'no such connected client');
    const key = (await this.opts.wallet.accountKeys(accountId, 'grants')).find((k) => k.keyId === row.key_id);
    if (key && key.revokedAt === null) {
      await this.opts.wallet.revokeAccountKey({ accountId, keyId: row.key_id });
    }
    const Records = oauthAdapter(this.opts.wallet.store, this.opts.clock);
    await new Records('Grant').destroy(grantId);
    await new Records('AccessToken').revokeByGrantId(grantId);
  }

  /**
   * The consented grant: oidc-provider's Grant with what the client asked for, and a key of the account
   * that the grant's tokens act through, named after the client so the dashboard lists and revokes it.
   */
  async consent(
    provider: Provider,
    input: {
      accountId: string;
      clientId: string;
      clientName: string;
      grantId?: string;
      missingScope: string[];
      missingResourceScopes: Record<string, string[]>;
      /** Unticked on the consent page: the client may use the free tools only. */
      metered: boolean;
    },
  ): Promise<string> {
    const grant =
      (input.grantId ? await provider.Grant.find(input.grantId) : undefined) ??
      new provider.Grant({ accountId: input.accountId, clientId: input.clientId });
    if (input.missingScope.length > 0) grant.addOIDCScope(input.missingScope.join(' '));
    for (const [resource, scopes] of Object.entries(input.missingResourceScopes)) {
      const allowed = input.metered ? scopes : scopes.filter((s) => s !== SCOPES.data);
      if (allowed.length > 0) grant.addResourceScope(resource, allowed.join(' '));
      // Refused, not just left out: otherwise the next sign-in would ask again.
      if (allowed.length < scopes.length) grant.rejectResourceScope(resource, SCOPES.data);
    }
    const grantId = await grant.save();
    const known = await this.opts.wallet.store.get<GrantRow>(
      'SELECT key_id, scope FROM oauth_grants WHERE grant_id = ?',
      [grantId],
    );
    if (!known) {
      const key = await this.opts.wallet.createAccountKey({
        accountId: input.accountId,
        // A grant acts on the account's real data and credits: always a live key (test mode is by key).
        mode: 'live',
        // A key name is at most 80 characters (createAccountKey); a client's name may be longer.
        name: `MCP client: ${input.clientName}`.slice(0, 80),
        set: 'grants',
      });
      const scope = [...new Set(Object.values(input.missingResourceScopes).flat())]
        .filter((s) => input.metered || s !== SCOPES.data)
        .join(' ');
      await this.opts.wallet.store.run(
        `INSERT INTO oauth_grants (grant_id, account_id, key_id, client_id, client_name, scope, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [
          grantId,
          input.accountId,
          key.keyId,
          input.clientId,
          input.clientName,
          scope,
          new Date().toISOString(),
        ],
      );
    }
    return grantId;
  }

  private create(origin: string): Provider {
    const resource = this.resource(origin);
    const cookieKey = createHmac('sha256', this.opts.secret)
      .update('regdata oauth cookies')
      .digest('base64url');
    const provider = new Provider(origin, {
      adapter: oauthAdapter(this.opts.wallet.store, this.opts.clock),
      jwks: { keys: [{ ...this.jwk, alg: 'ES256', use: 'sig', kid: 'regdata-1' } as never] },
      cookies: { keys: [cookieKey], long: { signed: true }, short: { signed: true } },
      routes: {
        authorization: `${OAUTH_PREFIX}/authorize`,
        token: `${OAUTH_PREFIX}/token`,
        registration: `${OAUTH_PREFIX}/register`,
        revocation: `${OAUTH_PREFIX}/revoke`,
        jwks: `${OAUTH_PREFIX}/jwks`,
        end_session: `${OAUTH_PREFIX}/end-session`,
        userinfo: `${OAUTH_PREFIX}/userinfo`,
        introspection: `${OAUTH_PREFIX}/introspect`,
        pushed_authorization_request: `${OAUTH_PREFIX}/par`,
        code_verification: `${OAUTH_PREFIX}/device`,
        device_authorization: `${OAUTH_PREFIX}/device/auth`,
        backchannel_authentication: `${OAUTH_PREFIX}/backchannel`,
        challenge: `${OAUTH_PREFIX}/challenge`,
      },
      scopes: [SCOPES.data, SCOPES.free, 'offline_access'],
      claims: { openid: ['sub'] },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        // The current MCP spec's registration: the client_id is an https URL of the client's metadata document,
        // which the library fetches (https only, 2.5 s, size-limited, special-use addresses refused, redirects
        // not followed), validates (its client_id must be its URL; no shared secrets) and caches per its
        // HTTP caching headers in a bounded LRU; the authorization request's redirect_uri must be one of it.
        clientIdMetadataDocument: {
          enabled: true,
          ack: 'draft-02',
          cacheDuration: CLIENT_DOCUMENT_CACHE_S,
        },
        revocation: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => resource,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => {
            if (indicator !== resource) throw new errors.InvalidTarget();
            return {
              scope: `${SCOPES.data} ${SCOPES.free}`,
              audience: resource,
              accessTokenTTL: ACCESS_TOKEN_TTL_S,
              accessTokenFormat: 'opaque',
            };
          },
        },
      },
      fetchResponseBodyLimits: { 'client_id metadata document': CLIENT_DOCUMENT_MAX_BYTES },
      ...(this.opts.loopbackClientDocuments && { fetch: loopbackAllowed }),
      pkce: { required: () => true },
      interactions: { url: (_ctx, interaction) => `${INTERACTION_PREFIX}/${interaction.uid}` },
      findAccount: async (_ctx, accountId) => ({ accountId, claims: async () => ({ sub: accountId }) }),
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: true,
      ttl: {
        AccessToken: ACCESS_TOKEN_TTL_S,
        AuthorizationCode: 60,
        RefreshToken: REFRESH_TOKEN_TTL_S,
        Grant: REFRESH_TOKEN_TTL_S,
        Interaction: 30 * 60,
        Session: 86_400,
        ClientCredentials: ACCESS_TOKEN_TTL_S,
      },
      clientDefaults: {
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
        // The one signing key is ES256 (no ID tokens are issued: the scopes are not OpenID's).
        id_token_signed_response_alg: 'ES256',
      },
    });
    provider.proxy = this.opts.proxy;
    return provider;
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

/**
 * The library's fetch, but a loopback URL (an IPv4/IPv6 loopback literal or localhost) goes out without its
 * special-use-address guard, which refuses loopback too. Every other host keeps the guard.
 */
function loopbackAllowed(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const host = new URL(input instanceof Request ? input.url : input).hostname;
  if (LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host)) {
    const { dispatcher: _guard, ...rest } = (init ?? {}) as RequestInit & { dispatcher?: unknown };
    return globalThis.fetch(input, rest);
  }
  return globalThis.fetch(input, init);
}

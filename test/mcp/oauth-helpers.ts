import type { OAuthClientProvider } from '@modelcontextprotocol/client';

/** The OAuth client's callback address; nothing listens there: the browser stops at the redirect. */
export const REDIRECT = 'http://127.0.0.1:9/callback';
export const PASSWORD = 'a long enough password';

/** What the SDK client keeps between runs (in memory here; an agent keeps it on disk). */
export function memoryProvider() {
  const kept: Record<string, unknown> = {};
  let authorizationUrl: URL | null = null;
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return REDIRECT;
    },
    get clientMetadata() {
      return {
        client_name: 'Test agent',
        redirect_uris: [REDIRECT],
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

  /** From the authorization URL to the client's callback: sign in, then answer the consent page. */
  async authorize(start: URL, email: string, consent: Record<string, string> = { metered: 'yes' }) {
    let url = start.href;
    const pages: string[] = [];
    for (let hop = 0; hop < 20; hop++) {
      if (url.startsWith(REDIRECT)) return { callback: new URL(url), pages };
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

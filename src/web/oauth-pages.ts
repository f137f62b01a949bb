import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import { isAppError } from '../errors/app-error.ts';
import {
  INTERACTION_PREFIX,
  SCOPE_TEXT,
  SCOPES,
  type AuthorizationServer,
} from '../oauth/authorization-server.ts';
import { baseUrl, clientAddress, sessionCookie, type WebDeps } from './context.ts';
import { csrfField, html, layout, type SafeHtml } from './html.ts';
import { formField, sendPage, type FormBody } from './respond.ts';

interface Uid {
  Params: { uid: string };
}

interface Prompt {
  name: string;
  details: { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
}

/** A page of the sign-in flow, in the dashboard's layout. */
const page = (request: FastifyRequest, title: string, body: SafeHtml) =>
  layout({ title, email: request.web.session?.email ?? null, csrfToken: request.web.csrfToken }, body);

/** Hands the result back to the provider, which redirects the browser on to the client. */
const finish = async (
  provider: Provider,
  request: FastifyRequest,
  reply: FastifyReply,
  result: InteractionResults,
) => {
  reply.hijack();
  await provider.interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission: true });
};

/** The dashboard account's sign-in, inside the client's authorization. */
const signInForm = (request: FastifyRequest, uid: string, clientName: string, error: string | null) =>
  page(
    request,
    'Sign in to connect',
    html`<main id="main">
      <h1>Sign in to connect ${clientName}</h1>
      <p>${clientName} asks to use the regdata MCP server for your account.</p>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <form method="post" action="${INTERACTION_PREFIX}/${uid}/login">
        ${csrfField(request.web.csrfToken)}
        <label>E-mail <input name="email" type="email" autocomplete="username" required /></label>
        <label
          >Password <input name="password" type="password" autocomplete="current-password" required
        /></label>
        <button type="submit">Sign in</button>
      </form>
    </main>`,
  );

/**
 * Answering a sign-in or consent form redirects the browser on to the client's redirect_uri (checked by the
 * provider against the client's registration), and browsers hold a form's redirects to CSP form-action:
 * these pages allow that one origin (or custom scheme, as desktop clients use) besides their own.
 */
function allowFormRedirectTo(reply: FastifyReply, redirectUri: unknown): void {
  const target = typeof redirectUri === 'string' && URL.canParse(redirectUri) ? new URL(redirectUri) : null;
  if (!target) return;
  const web = target.protocol === 'http:' || target.protocol === 'https:';
  const source = web ? target.origin : target.protocol;
  if (!web && !/^[a-z][a-z0-9+.-]*:$/.test(source)) return;
  const csp = String(reply.getHeader('content-security-policy') ?? '');
  reply.header('content-security-policy', csp.replace("form-action 'self'", `form-action 'self' ${source}`));
}

/** The client's registered name, else its id. */
const clientName = async (provider: Provider, clientId: unknown) => {
  const client = typeof clientId === 'string' ? await provider.Client.find(clientId) : undefined;
  return client?.clientName ?? (typeof clientId === 'string' ? clientId : 'an MCP client');
};

/** The consent: which client, which account, that its calls are charged, and the scopes. */
function consentPage(
  request: FastifyRequest,
  name: string,
  accountId: string,
  uid: string,
  scopes: string[],
): string {
  return page(
    request,
    'Connect an MCP client',
    html`<main id="main">
      <h1>Connect ${name}?</h1>
      <p>
        ${name} will act for the account
        <strong>${request.web.session?.email ?? accountId}</strong>. Its metered calls are charged to this
        account’s credits at the prices of the API, as calls with an API key are.
      </p>
      <p>It asks to:</p>
      <ul>
        ${scopes.map((s) => html`<li><code>${s}</code>: ${SCOPE_TEXT[s] ?? s}</li>`)}
      </ul>
      <p>You can disconnect it at any time: it is listed under Connected clients on the dashboard.</p>
      <form method="post" action="${INTERACTION_PREFIX}/${uid}/consent">
        ${csrfField(request.web.csrfToken)}
        ${
          scopes.includes(SCOPES.data)
            ? html`<label
                ><input type="checkbox" name="metered" value="yes" checked /> Allow metered calls (untick for
                the free tools only: then it can never spend)</label
              >`
            : ''
        }
        <button type="submit" name="decision" value="approve">Allow</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </form>
    </main>`,
  );
}

/**
 * The two pages an MCP client's sign-in shows in the browser (the MCP authorization flow, issue 29): the
 * dashboard account's sign-in, skipped when the browser is already signed in, then the consent: which
 * client, which account, that its calls are charged to this account's credits, and the scopes. Approving
 * creates the grant and the key it acts through (authorization-server.ts); the client is listed, with its
 * last use, on the dashboard's Connected clients page (client-pages.ts), where revoking disconnects it.
 */
export function oauthPages(app: FastifyInstance, deps: WebDeps, oauth: AuthorizationServer): void {
  const { identity, wallet } = deps;
  const providerOf = (request: FastifyRequest) => oauth.provider(baseUrl(deps, request));
  app.get<Uid>(`${INTERACTION_PREFIX}/:uid`, async (request, reply) => {
    const provider = providerOf(request);
    const details = await provider.interactionDetails(request.raw, reply.raw);
    const prompt = details.prompt as Prompt;
    const name = await clientName(provider, details.params['client_id']);
    allowFormRedirectTo(reply, details.params['redirect_uri']);
    if (prompt.name === 'login') {
      const accountId = request.web.session?.accountId;
      if (accountId) return finish(provider, request, reply, { login: { accountId } });
      return sendPage(reply, signInForm(request, details.uid, name, null));
    }
    const scopes = [
      ...new Set([
        ...(prompt.details.missingOIDCScope ?? []),
        ...Object.values(prompt.details.missingResourceScopes ?? {}).flat(),
      ]),
    ];
    return sendPage(reply, consentPage(request, name, details.session?.accountId ?? '', details.uid, scopes));
  });

  app.post<Uid & { Body: FormBody }>(`${INTERACTION_PREFIX}/:uid/login`, async (request, reply) => {
    const provider = providerOf(request);
    const details = await provider.interactionDetails(request.raw, reply.raw);
    try {
      const { token, session } = await identity.signIn(
        formField(request.body, 'email'),
        formField(request.body, 'password'),
        clientAddress(request),
      );
      await identity.signOut(request.web.sessionToken);
      let accountId = session.accountId;
      if (accountId === null) {
        accountId = (await wallet.completeRegistration(session.email)).accountId;
        await identity.linkAccount(session.userId, accountId);
      }
      reply.raw.setHeader('set-cookie', sessionCookie(deps, token, session.expiresAt));
      return await finish(provider, request, reply, { login: { accountId } });
    } catch (err) {
      if (isAppError(err) && err.status < 500) {
        const name = await clientName(provider, details.params['client_id']);
        allowFormRedirectTo(reply, details.params['redirect_uri']);
        return sendPage(reply.code(err.status), signInForm(request, details.uid, name, err.message));
      }
      throw err;
    }
  });

  app.post<Uid & { Body: FormBody }>(`${INTERACTION_PREFIX}/:uid/consent`, async (request, reply) => {
    const provider = providerOf(request);
    const details = await provider.interactionDetails(request.raw, reply.raw);
    const accountId = details.session?.accountId;
    if (formField(request.body, 'decision') !== 'approve' || !accountId) {
      return finish(provider, request, reply, {
        error: 'access_denied',
        error_description: 'the user did not allow the connection',
      });
    }
    const prompt = details.prompt as Prompt;
    const clientId = String(details.params['client_id']);
    const grantId = await oauth.consent(provider, {
      accountId,
      clientId,
      clientName: await clientName(provider, clientId),
      ...(details.grantId !== undefined && { grantId: details.grantId }),
      missingScope: prompt.details.missingOIDCScope ?? [],
      missingResourceScopes: prompt.details.missingResourceScopes ?? {},
      metered: formField(request.body, 'metered') === 'yes',
    });
    return finish(provider, request, reply, { consent: { grantId } });
  });
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isAppError } from '../errors/app-error.ts';
import type { AuthorizationServer } from '../oauth/authorization-server.ts';
import { signedIn, type SignedIn } from './dashboard-pages.ts';
import { layout, type SafeHtml } from './html.ts';
import { formField, sendPage, type FormBody } from './respond.ts';
import { clientsBody, revokeClientQuestion, revokedNotice } from './templates/clients.ts';
import { errorNotice } from './templates/notices.ts';

/**
 * The dashboard's Connected clients page (issue 29): the MCP clients the account signed in with OAuth, with
 * their scopes and last use, and revoking one (its grant, tokens and key: authorization-server.ts). The
 * forms carry the session's CSRF token, which the web plugin checks on every POST.
 */
export function clientPages(app: FastifyInstance, oauth: AuthorizationServer): void {
  /**
   * The connected clients only: a revoked grant leaves the list (its row and key stay in the database for
   * the usage history and audit; docs/api-decisions.md). Just after revoking one (`?revoked=<grant id>`),
   * the page says which and when, taken from the account's own record, so a link cannot make it say more.
   */
  const render = async (request: FastifyRequest, who: SignedIn, notice: SafeHtml | string, revoked = '') => {
    const all = await oauth.clients(who.accountId);
    const gone = revoked ? all.find((c) => c.grantId === revoked && c.revokedAt !== null) : undefined;
    const body = clientsBody({
      clients: all.filter((c) => c.revokedAt === null),
      csrfToken: request.web.csrfToken,
      notice: gone ? revokedNotice(gone) : notice,
    });
    return layout(
      {
        title: 'Connected clients',
        email: who.session.email,
        csrfToken: request.web.csrfToken,
        active: '/dashboard/clients',
        scripts: true,
      },
      body,
    );
  };

  app.get<{ Querystring: { revoked?: string } }>('/dashboard/clients', async (request, reply) => {
    const who = signedIn(request, reply);
    const revoked = typeof request.query.revoked === 'string' ? request.query.revoked : '';
    return who ? sendPage(reply, await render(request, who, '', revoked)) : reply;
  });

  app.post<{ Params: { grantId: string }; Body: FormBody }>(
    '/dashboard/clients/:grantId/revoke',
    async (request, reply) => {
      const who = signedIn(request, reply);
      if (!who) return reply;
      const client = (await oauth.clients(who.accountId)).find(
        (c) => c.grantId === request.params.grantId && c.revokedAt === null,
      );
      if (client && formField(request.body, 'confirm') !== 'yes') {
        return sendPage(
          reply,
          await render(request, who, revokeClientQuestion(client, request.web.csrfToken)),
        );
      }
      try {
        await oauth.revoke(who.accountId, request.params.grantId);
      } catch (err) {
        if (isAppError(err) && err.code === 'not_found') {
          return sendPage(reply.code(404), await render(request, who, errorNotice('No such client.')));
        }
        throw err;
      }
      return reply.redirect(`/dashboard/clients?revoked=${encodeURIComponent(request.params.grantId)}`, 303);
    },
  );
}

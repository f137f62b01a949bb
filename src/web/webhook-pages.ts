import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EndpointPathSchema } from '../contract/webhook-schemas.ts';
import { isAppError } from '../errors/app-error.ts';
import type { Caller } from '../services/operations.ts';
import type { WebPluginOptions } from './context.ts';
import { signedIn, type SignedIn } from './dashboard-pages.ts';
import { FormOnce } from './form-once.ts';
import { layout, type SafeHtml } from './html.ts';
import { formField, sendPage, type FormBody } from './respond.ts';
import { errorNotice, statusNotice } from './templates/notices.ts';
import { deleteEndpointQuestion, secretNotice, webhooksBody } from './templates/webhooks.ts';

/**
 * The dashboard's Webhooks page (issue 31): the account's endpoints, their delivery log with replay, and
 * the secret shown once. The same Endpoints and Deliverer as REST, through Operations.manageWatchlists for
 * the account's in-app principal (rate-limited, recorded, never charged).
 */
type Page = (
  request: FastifyRequest,
  who: SignedIn,
  notice?: SafeHtml | string,
  form?: { url: string; error: string | null },
) => Promise<string>;

export function webhookPages(app: FastifyInstance, deps: WebPluginOptions): void {
  const { wallet, ops, webhooks } = deps;
  const caller = callerOf(deps);
  const tokens = new FormOnce(wallet.store);
  const render = pageRenderer(deps, tokens);

  app.get('/dashboard/webhooks', async (request, reply) => {
    const who = signedIn(request, reply);
    if (!who) return reply;
    return sendPage(reply, await render(request, who));
  });
  if (!webhooks) return;

  app.post<{ Body: FormBody }>('/dashboard/webhooks', async (request, reply) => {
    const who = signedIn(request, reply);
    if (!who) return reply;
    const url = formField(request.body, 'url').trim();
    const spent = await tokens.spend(formField(request.body, '_once'), who.accountId);
    if (spent.state === 'used') {
      return sendPage(
        reply,
        await render(
          request,
          who,
          statusNotice(spent.outcome ?? 'This form was already sent; the endpoint is listed once below.'),
        ),
      );
    }
    if (spent.state === 'unknown') {
      const notice = errorNotice('This form has expired, so nothing was added. Please send it again.');
      return sendPage(reply.code(409), await render(request, who, notice, { url, error: null }));
    }
    try {
      const made = await ops.manageWatchlists(await caller(who), () =>
        webhooks.endpoints.create(who.accountId, url),
      );
      await tokens.record(
        formField(request.body, '_once'),
        // Not the URL: this plain-text notice cannot let it wrap; the list below shows it.
        'The endpoint was added; its secret was shown once.',
      );
      return sendPage(
        reply,
        await render(request, who, secretNotice(made.data.url, made.data.secret, false)),
      );
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      const error = err.issues[0]?.msg ?? err.message;
      return sendPage(reply.code(422), await render(request, who, '', { url, error }));
    }
  });

  endpointActions(app, deps, render);
}

/** The page: the endpoints with their last deliveries, the add form, and a notice. */
function pageRenderer(deps: WebPluginOptions, tokens: FormOnce): Page {
  const { webhooks } = deps;
  return (async (request, who, notice = '', form = { url: '', error: null }) => {
    const endpoints = webhooks
      ? await Promise.all(
          (await webhooks.endpoints.list(who.accountId)).map(async (endpoint) => ({
            endpoint,
            log: await webhooks.deliverer.log(who.accountId, endpoint.id, 20),
          })),
        )
      : [];
    const body = webhooksBody({
      endpoints,
      csrfToken: request.web.csrfToken,
      once: webhooks ? await tokens.issue(who.accountId) : '',
      notice,
      form,
      served: Boolean(webhooks),
    });
    const opts = {
      title: 'Webhooks',
      email: who.session.email,
      csrfToken: request.web.csrfToken,
      active: '/dashboard/webhooks',
    };
    return layout({ ...opts, scripts: true }, body);
  }) as Page;
}

/** Rotate, switch on, replay and delete: one form each, on the endpoint's id. */
function endpointActions(app: FastifyInstance, deps: WebPluginOptions, render: Page): void {
  const { ops } = deps;
  const webhooks = deps.webhooks!;
  const caller = callerOf(deps);
  type Action = { Params: { id: string; action: string }; Body: FormBody };
  app.post<Action>('/dashboard/webhooks/:id/:action', async (request, reply) => {
    const who = signedIn(request, reply);
    if (!who) return reply;
    const id = EndpointPathSchema.shape.id.safeParse(request.params.id);
    const endpoint = id.success
      ? (await webhooks.endpoints.list(who.accountId)).find((e) => e.id === id.data)
      : undefined;
    if (!endpoint)
      return sendPage(reply.code(404), await render(request, who, errorNotice('No such endpoint.')));
    const manage = async <T>(run: () => Promise<T>) =>
      (await ops.manageWatchlists(await caller(who), run)).data;
    switch (request.params.action) {
      case 'rotate': {
        const rotated = await manage(() => webhooks.endpoints.rotate(who.accountId, endpoint.id));
        return sendPage(reply, await render(request, who, secretNotice(rotated.url, rotated.secret, true)));
      }
      case 'enable':
        await manage(() => webhooks.endpoints.enable(who.accountId, endpoint.id));
        return reply.redirect('/dashboard/webhooks', 303);
      case 'replay': {
        const delivery = Number(formField(request.body, 'delivery'));
        const replayed =
          Number.isInteger(delivery) && delivery > 0
            ? await manage(() => webhooks.deliverer.replay(who.accountId, endpoint.id, delivery))
            : false;
        const notice = replayed
          ? statusNotice('Queued to be sent again now; it is charged no second time.')
          : errorNotice('No such delivery.');
        return sendPage(reply.code(replayed ? 200 : 404), await render(request, who, notice));
      }
      case 'delete':
        // The first click only asks: queued deliveries are dropped.
        if (formField(request.body, 'confirm') !== 'yes') {
          return sendPage(
            reply,
            await render(request, who, deleteEndpointQuestion(endpoint, request.web.csrfToken)),
          );
        }
        await manage(() => webhooks.endpoints.remove(who.accountId, endpoint.id));
        return reply.redirect('/dashboard/webhooks', 303);
      default:
        return sendPage(reply.code(404), await render(request, who, errorNotice('No such action.')));
    }
  });
}

/** The account's in-app principal: what the page's calls are rate-limited and recorded as. */
const callerOf =
  (deps: WebPluginOptions) =>
  async (who: SignedIn): Promise<Caller> => ({
    principal: await deps.wallet.appPrincipal(who.accountId),
    channel: 'app',
  });

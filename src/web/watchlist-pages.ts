import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WatchlistCreateBodySchema, WatchlistPathSchema } from '../contract/watchlist-schemas.ts';
import { isAppError, validationError } from '../errors/app-error.ts';
import { listEvents } from '../services/events.ts';
import type { Caller } from '../services/operations.ts';
import { createWatchlist, searchFromQuery, splitCodes } from '../services/watchlists.ts';
import type { Watchlist } from '../watchlists/watchlists.ts';
import type { WebPluginOptions } from './context.ts';
import { signedIn, type SignedIn } from './dashboard-pages.ts';
import { FormOnce } from './form-once.ts';
import { layout, type SafeHtml } from './html.ts';
import { formField, sendPage, type FormBody } from './respond.ts';
import { errorNotice, statusNotice } from './templates/notices.ts';
import {
  deleteQuestion,
  emptyForm,
  issueText,
  watchlistsBody,
  type EventSummary,
  type WatchForm,
} from './templates/watchlists.ts';

/**
 * The dashboard's Watchlists page (issue 31): the same services and Operations.manageWatchlists as REST
 * and MCP, for the account's in-app principal (channel `app`, rate-limited and recorded, never charged).
 * Events are counted, not shown: their content is what a pull charges for (docs/api-decisions.md).
 */

/** Events counted per country on the page; beyond this it says "or more". */
const EVENTS_COUNTED = 1000;

type Forms = { companiesForm: WatchForm; searchForm: WatchForm };

export function watchlistPages(app: FastifyInstance, deps: WebPluginOptions): void {
  const { wallet, ops, watchlists } = deps;
  const tokens = new FormOnce(wallet.store);
  const caller = async (who: SignedIn): Promise<Caller> => ({
    principal: await wallet.appPrincipal(who.accountId),
    channel: 'app',
  });

  const render = pageRenderer(deps, tokens);

  // "Watch this search" on the search page links here with the search's country and filters filled in.
  app.get<{ Querystring: Record<string, string | string[]> }>(
    '/dashboard/watchlists',
    async (request, reply) => {
      const who = signedIn(request, reply);
      if (!who) return reply;
      const q = (k: string) => {
        const v = request.query[k];
        return typeof v === 'string' ? v.slice(0, 4000) : '';
      };
      const searchForm = { ...emptyForm('search'), country: q('country'), filters: q('filters') };
      return sendPage(reply, await render(request, who, '', { searchForm }));
    },
  );

  if (!watchlists) return;

  app.post<{ Body: FormBody }>('/dashboard/watchlists', async (request, reply) => {
    const who = signedIn(request, reply);
    if (!who) return reply;
    const field = (k: string) => formField(request.body, k);
    const kind = field('kind') === 'search' ? 'search' : 'companies';
    const form: WatchForm = {
      ...{ kind, name: field('name'), country: field('country') },
      ...{ codes: field('codes'), filters: field('filters'), errors: [] },
    };
    const spent = await tokens.spend(field('_once'), who.accountId);
    if (spent.state === 'used') {
      const notice = spent.outcome ?? 'This form was already sent; the watchlist is listed once below.';
      return sendPage(reply, await render(request, who, statusNotice(notice)));
    }
    if (spent.state === 'unknown') {
      const notice = errorNotice('This form has expired, so nothing was created. Please send it again.');
      return sendPage(reply.code(409), await render(request, who, notice, { [`${kind}Form`]: form }));
    }
    try {
      const created = await ops.manageWatchlists(await caller(who), () =>
        createWatchlist(watchlists, who.accountId, formBody(form)),
      );
      const w = created.data;
      const done = `Watchlist ${w.name} created (${w.country}, ${w.kind === 'companies' ? `${w.companies} companies` : 'saved search'}).`;
      await tokens.record(field('_once'), done);
      return sendPage(reply, await render(request, who, statusNotice(done)));
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      const errors = err.issues.length > 0 ? err.issues.map(issueText) : [err.message];
      const failed = { ...form, errors };
      return sendPage(reply.code(422), await render(request, who, '', { [`${kind}Form`]: failed }));
    }
  });

  app.post<{ Params: { id: string }; Body: FormBody }>(
    '/dashboard/watchlists/:id/delete',
    async (request, reply) => {
      const who = signedIn(request, reply);
      if (!who) return reply;
      const id = WatchlistPathSchema.shape.id.safeParse(request.params.id);
      const list = id.success
        ? (await watchlists.list(who.accountId)).find((w) => w.id === id.data)
        : undefined;
      if (!list) {
        return sendPage(reply.code(404), await render(request, who, errorNotice('No such watchlist.')));
      }
      // The first click only asks: the events stop from the next publish on.
      if (formField(request.body, 'confirm') !== 'yes') {
        return sendPage(reply, await render(request, who, deleteQuestion(list, request.web.csrfToken)));
      }
      await ops.manageWatchlists(await caller(who), () => watchlists.remove(who.accountId, list.id));
      return reply.redirect('/dashboard/watchlists', 303);
    },
  );
}

/** The page, with the account's watchlists, its event counts and the two create forms. */
function pageRenderer(deps: WebPluginOptions, tokens: FormOnce) {
  const { ops, watchlists } = deps;
  const eventSummary = (who: SignedIn, lists: Watchlist[]): Promise<EventSummary[]> =>
    Promise.all(
      [...new Set(lists.map((w) => w.country))].map(async (country) => {
        const page = await listEvents(ops.engine, who.accountId, { country, page_size: EVENTS_COUNTED });
        const capped = page.items.length === EVENTS_COUNTED;
        const newest = capped ? null : (page.items.at(-1)?.as_of ?? null);
        return { country, count: page.items.length, capped, newest };
      }),
    );

  return async (
    request: FastifyRequest,
    who: SignedIn,
    notice: SafeHtml | string,
    forms: Partial<Forms> = {},
  ) => {
    const lists = watchlists ? await watchlists.list(who.accountId) : [];
    const view = watchlists
      ? {
          lists,
          events: ops.engine.snapshot ? await eventSummary(who, lists) : [],
          once: await tokens.issue(who.accountId),
          served: true,
        }
      : { lists, events: [], once: '', served: false };
    const body = watchlistsBody({
      ...view,
      csrfToken: request.web.csrfToken,
      notice,
      companiesForm: forms.companiesForm ?? emptyForm('companies'),
      searchForm: forms.searchForm ?? emptyForm('search'),
    });
    return layout(
      {
        title: 'Watchlists',
        email: who.session.email,
        csrfToken: request.web.csrfToken,
        active: '/dashboard/watchlists',
        scripts: true,
      },
      body,
    );
  };
}

/** The form as the REST create body, parsed by its schema: the same rules and the same messages. */
function formBody(f: WatchForm) {
  const country = f.country;
  const body =
    f.kind === 'companies'
      ? { name: f.name, country, companies: splitCodes(f.codes) }
      : { name: f.name, country, search: searchOf(country, f.filters) };
  const parsed = WatchlistCreateBodySchema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw validationError(
    parsed.error.issues.map((i) => ({
      loc: ['body', ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))],
      param: String(i.path[0] ?? 'body'),
      msg: i.message,
      type: i.code,
    })),
  );
}

/** The filters only once the country is known: they are checked against that country's. */
function searchOf(country: string, filters: string): Record<string, unknown> {
  const parsed = WatchlistCreateBodySchema.shape.country.safeParse(country);
  return parsed.success ? searchFromQuery(parsed.data, filters) : {};
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  CountQuerySchema,
  CountrySchema,
  LocationsQuerySchema,
  SearchQueryObject,
  SearchQuerySchema,
  SORT_FIELDS,
} from '../contract/api-schemas.ts';
import {
  COUNTRIES,
  COUNTRY_CODES,
  isCountryCode,
  workplaceCountries,
  type CountryCode,
} from '../contract/countries.ts';
import { AppError, validationError, type ValidationIssue } from '../errors/app-error.ts';
import { arrayParams } from '../http/query-params.ts';
import type { Caller } from '../services/operations.ts';
import { freeReason } from '../wallet/metering.ts';
import type { Wallet } from '../wallet/wallet.ts';
import { CSRF_HEADER, csrfOk, type WebPluginOptions } from './context.ts';
import { filterPresentation } from './filter-ui.ts';
import { signedIn } from './dashboard-pages.ts';
import { creditsHtml, html, jsonBlock, layout, type SafeHtml } from './html.ts';
import { sendPage } from './respond.ts';

/**
 * In-app search: a page whose script (static/app.js) builds the filter form from /filters and calls the
 * JSON endpoints below. Every endpoint is the same Operations call REST and MCP make, with channel 'app'
 * and the account's in-app principal, so it is validated, rate-limited and metered exactly alike.
 */

const SEARCH_ARRAYS = arrayParams(SearchQueryObject);
/** Values from the form arrive as strings, or arrays of strings for repeatable parameters. */
const ParamsSchema = z.record(
  z.string(),
  z.union([z.string().max(200), z.array(z.string().max(200)).max(2000)]),
);
const CountBody = z.strictObject({
  params: ParamsSchema,
  page_size: z.number().int().min(1).max(500).default(50),
});
const SearchBody = z.strictObject({ params: ParamsSchema });
const CompanyBody = z.strictObject({
  country: CountrySchema,
  registrikood: z.string().min(1).max(40),
  part: z.enum(['detail', 'history', 'workplaces']),
});

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues: ValidationIssue[] = parsed.error.issues.map((i) => ({
    loc: ['body', ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))],
    param: String(i.path[0] ?? ''),
    msg: i.message,
    type: i.code,
  }));
  throw validationError(issues);
}

/** A repeatable parameter sent once is a list of one, as the REST query normalisation does. */
function normalise(params: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === '' || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = SEARCH_ARRAYS.has(k) && !Array.isArray(v) ? [v] : v;
  }
  return out;
}

/** What the page's script starts from: the countries with their prices, the balance, the filter wording. */
function searchBoot(prices: Readonly<Record<CountryCode, number>>, balance: number) {
  return {
    countries: COUNTRY_CODES.map((c) => ({
      code: c,
      name: COUNTRIES[c].name,
      price: prices[c],
      industrySystem: COUNTRIES[c].industrySystem,
      hasLocationTree: COUNTRIES[c].hasLocationTree,
      currency: COUNTRIES[c].currency,
      workplaces: COUNTRIES[c].workplaces,
    })),
    balance,
    sortFields: Object.keys(SORT_FIELDS),
    presentation: filterPresentation(),
  };
}

type SearchBoot = ReturnType<typeof searchBoot>;

/**
 * Filters in a side panel (a drawer on a phone); the count, the cost and the run button in a bar that
 * stays in view above the results, so what a search costs is on screen while the filters change.
 */
function searchBody(boot: SearchBoot, balance: number): SafeHtml {
  return html`<h1 class="page-title">Search companies</h1>
    ${jsonBlock('boot', boot)}
    <div class="search-layout">
      <aside id="filter-panel" class="filter-panel" aria-labelledby="filters-h">
        <div class="panel-head">
          <h2 id="filters-h" tabindex="-1">Filters</h2>
          <button type="button" id="close-filters" class="phone-only">Show results</button>
        </div>
        <p id="drawer-status" class="phone-only drawer-status" aria-live="polite"></p>
        <div id="loosen-drawer" class="phone-only" aria-live="polite"></div>
        <form id="search-form" novalidate>
          <div class="field">
            <label for="country">Country</label>
            <select id="country" name="country" required>
              <option value="">Choose a country</option>
              ${boot.countries.map((c) => html`<option value="${c.code}">${c.name}</option>`)}
            </select>
          </div>
          <div id="filters" aria-live="polite"></div>
          <div class="field">
            <label for="page_size">Rows per page</label>
            <select id="page_size" name="page_size">
              ${[10, 25, 50, 100].map((n) => html`<option value="${n}" ${n === 10 ? html`selected` : ''}>${n}</option>`)}
            </select>
          </div>
        </form>
      </aside>
      <div class="results-pane">
        <section id="summary" class="summary" aria-label="Matches and cost">
          <button
            type="button"
            id="open-filters"
            class="phone-only secondary"
            aria-controls="filter-panel"
            aria-expanded="false"
          >
            Filters
          </button>
          <div class="summary-text">
            <p id="count" role="status">Choose a country to count companies (counting is free).</p>
            <p id="quote"></p>
            <p id="watch-line" hidden>
              <a id="watch-search" href="/dashboard/watchlists#new-search">Watch this search</a>
            </p>
          </div>
          <div class="summary-actions">
            <button type="submit" form="search-form" id="run-search" data-costs disabled>Run search</button>
            <button type="button" id="export-csv" class="secondary" disabled>Export CSV</button>
          </div>
          <p class="balance-line">
            Balance <strong><span id="balance">${creditsHtml(balance)}</span> credits</strong>
          </p>
        </section>
        <p id="search-error" class="error" role="alert" hidden></p>
        <div id="loosen" aria-live="polite"></div>
        <section id="results" aria-live="polite" aria-label="Results"></section>
        <section id="detail" aria-label="Company detail"></section>
      </div>
    </div>`;
}

export function searchPages(app: FastifyInstance, deps: WebPluginOptions): void {
  const { wallet } = deps;

  app.get('/search', async (request, reply) => {
    const who = signedIn(request, reply);
    if (!who) return reply;
    const b = await wallet.balance({ accountId: who.accountId });
    const boot = searchBoot(wallet.prices, b.balance);
    const body = searchBody(boot, b.balance);
    return sendPage(
      reply,
      layout(
        {
          title: 'Search',
          email: who.session.email,
          csrfToken: request.web.csrfToken,
          active: '/search',
          scripts: true,
        },
        body,
      ),
    );
  });
  searchApi(app, deps);
}

/** The JSON endpoints the search page's script calls. */
function searchApi(app: FastifyInstance, deps: WebPluginOptions): void {
  const { wallet, ops } = deps;

  /** Session + CSRF header for every JSON call (a cross-site page can neither read nor forge them). */
  const apiCaller = async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ caller: Caller; accountId: string } | null> => {
    const session = request.web.session;
    if (!session || session.accountId === null) {
      void reply.code(401).send({ detail: 'sign in first' });
      return null;
    }
    if (!csrfOk(request, request.headers[CSRF_HEADER])) {
      void reply.code(403).send({ detail: 'missing or wrong CSRF token' });
      return null;
    }
    return {
      caller: { principal: await wallet.appPrincipal(session.accountId), channel: 'app' },
      accountId: session.accountId,
    };
  };

  const countryOf = (value: unknown) => {
    const c = String(value ?? '');
    if (!isCountryCode(c))
      throw new AppError('validation_failed', 'country', [
        { loc: ['query', 'country'], param: 'country', msg: 'unknown country', type: 'enum' },
      ]);
    return c;
  };

  app.get<{ Querystring: Record<string, string> }>('/app/api/filters', async (request, reply) => {
    const who = await apiCaller(request, reply);
    if (!who) return reply;
    return (await ops.filters(who.caller, countryOf(request.query['country']))).data;
  });

  app.get<{ Querystring: Record<string, string> }>('/app/api/activities', async (request, reply) => {
    const who = await apiCaller(request, reply);
    if (!who) return reply;
    return (await ops.activities(who.caller, { country: countryOf(request.query['country']), lang: 'en' }))
      .data;
  });

  app.get<{ Querystring: Record<string, string> }>('/app/api/locations', async (request, reply) => {
    const who = await apiCaller(request, reply);
    if (!who) return reply;
    return (await ops.locations(who.caller, parse(LocationsQuerySchema, request.query))).data;
  });

  app.post('/app/api/count', async (request, reply) => {
    const who = await apiCaller(request, reply);
    if (!who) return reply;
    const body = parse(CountBody, request.body);
    const params = parse(CountQuerySchema, normalise(body.params));
    const { data } = await ops.count(who.caller, params);
    const quote = await firstPageQuote(wallet, who, params.country, body.page_size, data.count);
    return { ...data, quote };
  });

  app.post('/app/api/search', async (request, reply) => {
    const who = await apiCaller(request, reply);
    if (!who) return reply;
    const body = parse(SearchBody, request.body);
    const { data, meta } = await ops.search(who.caller, parse(SearchQuerySchema, normalise(body.params)));
    return { data, meta };
  });

  app.post('/app/api/company', async (request, reply) => {
    const who = await apiCaller(request, reply);
    if (!who) return reply;
    const { part, ...ref } = parse(CompanyBody, request.body);
    if (part === 'workplaces' && !COUNTRIES[ref.country].workplaces) {
      const msg = `workplaces exist for ${workplaceCountries().join(', ')} only`;
      throw validationError([{ loc: ['body', 'country'], param: 'country', msg, type: 'enum' }]);
    }
    const answer =
      part === 'detail'
        ? await ops.detail(who.caller, ref)
        : part === 'history'
          ? await ops.history(who.caller, ref)
          : await ops.workplaces(who.caller, ref);
    return { data: answer.data, meta: answer.meta };
  });
}

/** What running the first page will cost, decided by the same waiver rule the metering applies. */
async function firstPageQuote(
  wallet: Wallet,
  who: { caller: Caller; accountId: string },
  country: CountryCode,
  pageSize: number,
  count: number | null | undefined,
) {
  const b = await wallet.balance({ accountId: who.accountId });
  const active = new Set(b.subscriptions.filter((s) => s.active).map((s) => s.country));
  const waived = freeReason(who.caller.principal, b.plan, { channel: 'app', country }, (c) => active.has(c));
  const price = wallet.prices[country];
  const rows = Math.min(pageSize, count ?? pageSize);
  return {
    price,
    page_size: pageSize,
    rows_first_page: rows,
    credits_first_page: waived ? 0 : round6(rows * price),
    credits_reserved: waived ? 0 : round6(pageSize * price),
    waived_by: waived,
    balance: b.balance,
  };
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

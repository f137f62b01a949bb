import type { FastifyInstance } from 'fastify';
import { CountQuerySchema, CountResponseSchema } from '../contract/api-schemas.ts';
import { COUNTRIES, COUNTRY_CODES, type CountryCode } from '../contract/countries.ts';
import { countCompanies } from '../services/companies.ts';
import type { Operations } from '../services/operations.ts';
import {
  COUNTRY_PLAN_EUR_PER_MONTH,
  REGISTRATION_CREDITS,
  REGISTRATION_VALIDITY_MS,
  TRIAL_MS,
  UNLIMITED_EUR_PER_MONTH,
} from '../wallet/wallet.ts';
import { baseUrl, type WebPluginOptions } from './context.ts';
import { html, layout, type SafeHtml } from './html.ts';
import { sendPage } from './respond.ts';

const DAY_MS = 86_400_000;

/** A row price as the spec writes it: at least cents ("0.10"), and every declared digit. */
const PRICE = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });

/** The example on the landing page: a real, free request, answered from the data this server serves. */
export interface LandingExample {
  path: string;
  /** The body the REST API answers, as its response schema serializes it. */
  answer: unknown;
  country: CountryCode;
  dataAsOf: string;
}

/**
 * The count of a country's active companies (free on the API too, so showing it gives nothing away), for
 * the first country the live snapshot has. Counted once per snapshot; null while no data is loaded.
 */
export function landingExample(ops: Operations): () => Promise<LandingExample | null> {
  let cached: { snapshotId: string; example: LandingExample } | null = null;
  return async () => {
    const snap = ops.engine.snapshot;
    const country = COUNTRY_CODES.find((c) => snap?.countries.includes(c));
    const fresh = country ? ops.freshness(country) : null;
    if (!snap || !country || !fresh) return null;
    if (cached?.snapshotId !== snap.id) {
      const query = { country };
      const answer = CountResponseSchema.parse(
        await countCompanies(ops.engine, CountQuerySchema.parse(query)),
      );
      const path = `/api/v1/data/count?${new URLSearchParams(query).toString()}`;
      cached = { snapshotId: snap.id, example: { path, answer, country, dataAsOf: fresh.data_as_of } };
    }
    return cached.example;
  };
}

function pricesTable(prices: Readonly<Record<CountryCode, number>>): SafeHtml {
  return html`<table id="prices" tabindex="0">
    <caption>
      Price per returned row, in credits (1 credit = 1 euro)
    </caption>
    <thead>
      <tr>
        <th scope="col">Country</th>
        <th scope="col">Row price</th>
      </tr>
    </thead>
    <tbody>
      ${COUNTRY_CODES.map(
        (c) =>
          html`<tr>
            <th scope="row">${COUNTRIES[c].name} (${c})</th>
            <td data-price="${prices[c]}">${PRICE.format(prices[c])}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function exampleSection(base: string, example: LandingExample | null, price: number | null): SafeHtml {
  if (!example) return html`<p>This server has no data loaded yet, so there is no example to show.</p>`;
  // Two lines, as a shell takes them, so less of it hides behind the box's edge on a phone.
  const curl = `curl -H "Authorization: Bearer YOUR_KEY" \\\n  "${base}${example.path}"`;
  return html`<p>
      A real request, answered by this server just now from the data it serves (as of
      <span class="nowrap">${example.dataAsOf}</span>): how many active companies
      ${COUNTRIES[example.country].name} has. Counting is free; a search of those companies costs
      ${price === null ? '' : PRICE.format(price)} credits per row returned.
    </p>
    <p>The request:</p>
    <pre class="example" tabindex="0"><code>${curl}</code></pre>
    <p>The answer (HTTP 200, with a <code>Data-As-Of</code> header):</p>
    <pre class="example" tabindex="0"><code>${JSON.stringify(example.answer, null, 2)}</code></pre>`;
}

/** The public front page: what the service is, what a row costs per country, and one real example. */
export function landingPage(app: FastifyInstance, deps: WebPluginOptions): void {
  const example = landingExample(deps.ops);
  app.get('/', async (request, reply) => {
    if (request.web.session) return reply.redirect('/dashboard', 303);
    const names = COUNTRY_CODES.map((c) => COUNTRIES[c].name);
    const shown = await example();
    const body = html`<h1>Company register data for ${names.length} countries</h1>
      <p>
        Official register data of ${names.slice(0, -1).join(', ')} and ${names.at(-1)}: search companies in
        the browser, or get an API key for the REST API and the MCP server. One wallet pays for all three, per
        row returned.
      </p>
      <p><a class="button" href="/signup">Create an account</a> <a href="/signin">Sign in</a></p>
      <section aria-labelledby="prices-h">
        <h2 id="prices-h">Prices</h2>
        ${pricesTable(deps.wallet.prices)}
        <p>
          Counting, filters and reference lists are free. A country plan (${COUNTRY_PLAN_EUR_PER_MONTH} € a
          month) or the Unlimited plan (${UNLIMITED_EUR_PER_MONTH} € a month) makes rows free. New accounts
          get ${REGISTRATION_CREDITS} credits (valid ${REGISTRATION_VALIDITY_MS / DAY_MS} days) and a
          ${TRIAL_MS / DAY_MS}-day trial of unmetered API and MCP use.
        </p>
      </section>
      <section aria-labelledby="example-h">
        <h2 id="example-h">Example</h2>
        ${exampleSection(baseUrl(deps, request), shown, shown ? deps.wallet.prices[shown.country] : null)}
        <p><a href="/docs">The API reference</a> lists every endpoint and filter.</p>
      </section>`;
    const page = layout(
      { title: 'Company register data', email: null, csrfToken: request.web.csrfToken },
      body,
    );
    return sendPage(reply, page);
  });
}

import { COUNTRIES, COUNTRY_CODES } from '../../contract/countries.ts';
import type { ValidationIssue } from '../../errors/app-error.ts';
import { searchText } from '../../services/watchlists.ts';
import type { Watchlist } from '../../watchlists/watchlists.ts';
import { csrfField, formatDate, html, type SafeHtml } from '../html.ts';

/** What the account's events look like, per country it watches: how many are kept, never their content. */
export interface EventSummary {
  country: string;
  /** Events kept for the account (30 days); `capped` when there are at least this many. */
  count: number;
  capped: boolean;
  /** The publish day of the newest counted event. */
  newest: string | null;
}

/** The values of a create form sent back with its errors, so nothing typed is lost. */
export interface WatchForm {
  kind: 'companies' | 'search';
  name: string;
  country: string;
  codes: string;
  filters: string;
  /** Why the last submit of this form was refused, one line each. */
  errors: string[];
}

export interface WatchlistsView {
  lists: Watchlist[];
  events: EventSummary[];
  csrfToken: string;
  /** Single-use token of the create forms: a double submit creates one watchlist. */
  once: string;
  notice: SafeHtml | string;
  companiesForm: WatchForm;
  searchForm: WatchForm;
  /** False when this server keeps no watchlists: the page says so. */
  served: boolean;
}

export const emptyForm = (kind: WatchForm['kind']): WatchForm => ({
  kind,
  name: '',
  country: '',
  codes: '',
  filters: '',
  errors: [],
});

/** The Watchlists page: the account's lists and saved searches, two create forms, and what events exist. */
export function watchlistsBody(v: WatchlistsView): SafeHtml {
  if (!v.served) {
    return html`<h1>Watchlists</h1>
      <p>This server does not keep watchlists.</p>`;
  }
  return html`<h1>Watchlists</h1>
    ${v.notice}
    <p>
      Watch companies, or a saved search, of one country. Each publish then makes an event for every watched
      company it adds, removes or changes, and for every company that enters or leaves a saved search.
      Managing watchlists is free; an event costs its country's row price once, when you pull it with
      <code>GET /api/v1/data/events</code> (<a href="/docs">docs</a>) or the MCP tool
      <code>list_events</code>, or when <a href="/dashboard/webhooks">Webhooks</a> push it to your endpoint.
    </p>
    ${listsTable(v.lists, v.csrfToken)} ${eventsSection(v.events, v.lists.length > 0)}
    <h2 id="new-list">Watch companies</h2>
    ${createForm(v, v.companiesForm)}
    <h2 id="new-search">Watch a search</h2>
    <p>
      Every company that matches the filters is watched, re-evaluated at each publish. Use
      <a href="/search">Search</a> and its “Watch this search” link, or paste the filters as the API's query
      string, such as <code>legal_form=OÜ&amp;employees_band=3</code>.
    </p>
    ${createForm(v, v.searchForm)}`;
}

function listsTable(lists: Watchlist[], csrfToken: string): SafeHtml {
  return html`<table id="watchlists" tabindex="0">
    <caption>
      Your watchlists
    </caption>
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Country</th>
        <th scope="col">Watches</th>
        <th scope="col">Created</th>
        <th scope="col">Action</th>
      </tr>
    </thead>
    <tbody>
      ${
        lists.length === 0
          ? html`<tr>
              <td colspan="5">No watchlists yet.</td>
            </tr>`
          : ''
      }
      ${lists.map((w) => listRow(w, csrfToken))}
    </tbody>
  </table>`;
}

/** Values shown per filter of a saved search (a location node can send hundreds of codes). */
const SHOWN_VALUES = 5;

function listRow(w: Watchlist, csrfToken: string): SafeHtml {
  const watches =
    w.kind === 'companies'
      ? `${w.companies} ${w.companies === 1 ? 'company' : 'companies'}`
      : `Search: ${searchText(w.search, SHOWN_VALUES)}`;
  return html`<tr data-watchlist-id="${w.id}">
    <td>${w.name}</td>
    <td>${w.country}</td>
    <td>${watches}</td>
    <td>${formatDate(w.created_at)}</td>
    <td>
      <form method="post" action="/dashboard/watchlists/${w.id}/delete" class="inline">
        ${csrfField(csrfToken)}
        <button type="submit" class="danger" aria-label="Delete watchlist ${w.name}">Delete</button>
      </form>
    </td>
  </tr>`;
}

function eventsSection(events: EventSummary[], watching: boolean): SafeHtml {
  const lines = events
    .filter((e) => e.count > 0)
    .map((e) => {
      const name = COUNTRIES[e.country as keyof typeof COUNTRIES]?.name ?? e.country;
      const count = `${e.capped ? `${e.count} or more` : e.count} ${e.count === 1 ? 'event' : 'events'}`;
      const newest = e.newest ? `, the newest from the publish of ${e.newest}` : '';
      return html`<li>${name}: ${count}${newest}</li>`;
    });
  return html`<section aria-labelledby="events-h">
    <h2 id="events-h">Events</h2>
    ${
      lines.length > 0
        ? html`<ul id="event-counts">
              ${lines}
            </ul>
            <p>
              Events are kept 30 days. Their content (the company, the fields before and after) is what you
              pull and pay for, so it is not shown here.
            </p>`
        : html`<p id="event-counts">
            ${
              watching
                ? 'No events yet: they are made when a publish changes a watched company.'
                : 'Create a watchlist to receive events.'
            }
          </p>`
    }
  </section>`;
}

const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  country: 'Country',
  companies: 'Registration codes',
  search: 'Filters',
  body: 'Watchlist',
};

/** One refusal as a line: the field it is about and the service's own words. */
export function issueText(issue: Pick<ValidationIssue, 'param' | 'msg'>): string {
  return `${FIELD_LABELS[issue.param] ?? issue.param}: ${issue.msg}`;
}

function createForm(v: WatchlistsView, f: WatchForm): SafeHtml {
  const id = (name: string) => `${f.kind}-${name}`;
  const errorsId = id('errors');
  const described = f.errors.length > 0 ? html`aria-describedby="${errorsId}"` : '';
  const what =
    f.kind === 'companies'
      ? html`<div class="field">
          <label for="${id('codes')}">Registration codes (one per line or comma-separated)</label>
          <textarea id="${id('codes')}" name="codes" rows="5" required ${described}>${f.codes}</textarea>
        </div>`
      : html`<div class="field">
          <label for="${id('filters')}">Filters (the API's query string)</label>
          <input id="${id('filters')}" name="filters" value="${f.filters}" maxlength="4000" ${described} />
        </div>`;
  return html`<form method="post" action="/dashboard/watchlists" class="stack watch-form">
    ${csrfField(v.csrfToken)}
    <input type="hidden" name="_once" value="${v.once}" />
    <input type="hidden" name="kind" value="${f.kind}" />
    ${
      f.errors.length > 0
        ? html`<ul class="error" id="${errorsId}" role="alert">
            ${f.errors.map((e) => html`<li>${e}</li>`)}
          </ul>`
        : ''
    }
    <div class="field">
      <label for="${id('name')}">Name</label>
      <input id="${id('name')}" name="name" required maxlength="100" value="${f.name}" />
    </div>
    <div class="field">
      <label for="${id('country')}">Country</label>
      <select id="${id('country')}" name="country" required>
        <option value="">Choose a country</option>
        ${COUNTRY_CODES.map(
          (c) =>
            html`<option value="${c}" ${f.country === c ? html`selected` : ''}>${COUNTRIES[c].name}</option>`,
        )}
      </select>
    </div>
    ${what}
    <p>
      <button type="submit">${f.kind === 'companies' ? 'Watch these companies' : 'Watch this search'}</button>
    </p>
  </form>`;
}

/** Deleting stops the events at once: the first click only asks. */
export function deleteQuestion(w: Watchlist, csrfToken: string): SafeHtml {
  return html`<section class="confirm" aria-labelledby="confirm-h">
    <h2 id="confirm-h" tabindex="-1">Delete watchlist ${w.name}?</h2>
    <p>No events are made for it from the next publish on. Events already made stay readable.</p>
    <form method="post" action="/dashboard/watchlists/${w.id}/delete" class="row">
      ${csrfField(csrfToken)}
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit" class="danger">Yes, delete ${w.name}</button>
      <a href="/dashboard/watchlists">Cancel, keep it</a>
    </form>
  </section>`;
}

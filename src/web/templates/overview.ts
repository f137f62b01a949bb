import type { BalanceReport } from '../../wallet/wallet.ts';
import { stackedBars } from '../charts.ts';
import { creditsHtml, formatDate, html, type SafeHtml } from '../html.ts';
import { USAGE_DAYS, type UsageSummary, type UsageTotals } from '../usage-summary.ts';
import { planLabel } from './labels.ts';

export interface OverviewView {
  balance: BalanceReport;
  days: number;
  usage: UsageSummary;
  /** The base URL of the Get started block, for an account without keys; null leaves the block out. */
  startBase: string | null;
}

/** The overview's main content: Get started (a new account), balance and lots, usage chart and tables. */
export function overviewBody(v: OverviewView): SafeHtml {
  return html`<h1>Overview</h1>
    ${v.startBase === null ? '' : getStarted(v.startBase)}
    <section aria-labelledby="balance-h">
      <h2 id="balance-h">Balance</h2>
      <p class="big"><span id="balance">${creditsHtml(v.balance.balance)}</span> credits</p>
      ${
        v.balance.pending > 0
          ? html`<p>${creditsHtml(v.balance.pending)} credits held by calls in progress.</p>`
          : ''
      }
      ${planLine(v.balance)} ${trialNote(v.balance)} ${lotsTable(v.balance)}
      <p><a href="/dashboard/billing">Top up or change plan</a></p>
    </section>
    ${usageSection(v.days, v.usage)}`;
}

/** A new account has nothing to chart yet: what it needs is its first key and how to use it. */
function getStarted(base: string): SafeHtml {
  const curl = `curl -H "Authorization: Bearer YOUR_KEY" "${base}/api/v1/data/companies?country=EE&page_size=5"`;
  const mcpConfig = JSON.stringify(
    {
      mcpServers: {
        regdata: { type: 'http', url: `${base}/mcp`, headers: { Authorization: 'Bearer YOUR_KEY' } },
      },
    },
    null,
    2,
  );
  return html`<section class="start" aria-labelledby="start-h">
    <h2 id="start-h">Get started</h2>
    <ol>
      <li>
        <a href="/dashboard/keys">Create your first API key</a>, or try the
        <a href="/search">search in the app</a> (counting is free).
      </li>
      <li>
        <label for="start-curl">Call the REST API with it (replace YOUR_KEY):</label>
        <textarea id="start-curl" readonly rows="3">${curl}</textarea>
        <button type="button" data-copy="start-curl">Copy the curl command</button>
      </li>
      <li>
        <label for="start-mcp">Or add the MCP server to your assistant's configuration:</label>
        <textarea id="start-mcp" readonly rows="10">${mcpConfig}</textarea>
        <button type="button" data-copy="start-mcp">Copy the MCP configuration</button>
      </li>
    </ol>
  </section>`;
}

function planLine(b: BalanceReport): SafeHtml {
  const active = b.subscriptions.filter((s) => s.active);
  return html`<p>
    Plan: <strong>${planLabel(b.plan)}</strong>${
      active.length
        ? html`; country plans:
          ${active.map((s) => `${s.country} (until ${formatDate(s.endsAt)})`).join(', ')}`
        : ''
    }
  </p>`;
}

function trialNote(b: BalanceReport): SafeHtml | string {
  if (b.plan === 'trial') {
    return html`<p class="ok" role="status">
      Trial: REST and MCP use is unmetered until <strong>${formatDate(b.trialEndsAt)}</strong>. In-app search
      draws on your credits.
    </p>`;
  }
  return b.trialEndsAt ? html`<p>Your trial ended ${formatDate(b.trialEndsAt)}.</p>` : '';
}

function lotsTable(b: BalanceReport): SafeHtml {
  return html`<table tabindex="0">
    <caption>
      Credit lots (spent earliest expiry first)
    </caption>
    <thead>
      <tr>
        <th scope="col">Source</th>
        <th scope="col">Granted</th>
        <th scope="col">Spent</th>
        <th scope="col">Left</th>
        <th scope="col">Expires</th>
      </tr>
    </thead>
    <tbody>
      ${b.lots.map(
        (l) =>
          html`<tr>
            <th scope="row">${l.source}</th>
            <td>${creditsHtml(l.amount)}</td>
            <td>${creditsHtml(l.spent)}</td>
            <td>${creditsHtml(l.remaining)}</td>
            <td>
              ${l.expiresAt ? formatDate(l.expiresAt) : 'never'}${l.expired > 0 ? html` (expired: ${creditsHtml(l.expired)})` : ''}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function usageSection(days: number, usage: UsageSummary): SafeHtml {
  const chart = stackedBars({
    label: `Requests per day and channel, last ${days} days`,
    slots: usage.slots,
    series: usage.byChannel,
    unit: { one: 'request', many: 'requests' },
  });
  return html`<section aria-labelledby="usage-h">
    <h2 id="usage-h">Usage, last ${days} days</h2>
    <p>
      Show:
      ${USAGE_DAYS.map((d) => (d === days ? html`<strong>${d} days</strong> ` : html`<a href="/dashboard?days=${d}">${d} days</a> `))}
    </p>
    ${chart} ${totalsTable('By channel', 'Channel', usage.channelTotals)}
    ${totalsTable('By country', 'Country', usage.countryTotals)}
  </section>`;
}

function totalsTable(title: string, what: string, rows: [string, UsageTotals][]): SafeHtml {
  return html`<table tabindex="0">
    <caption>
      ${title}
    </caption>
    <thead>
      <tr>
        <th scope="col">${what}</th>
        <th scope="col">Requests</th>
        <th scope="col">Rows</th>
        <th scope="col">Credits</th>
      </tr>
    </thead>
    <tbody>
      ${
        rows.length === 0
          ? html`<tr>
              <td colspan="4">No metered calls in this period.</td>
            </tr>`
          : ''
      }
      ${rows.map(
        ([k, t]) =>
          html`<tr>
            <th scope="row">${k}</th>
            <td>${t.requests}</td>
            <td>${t.rows}</td>
            <td>${creditsHtml(t.credits)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

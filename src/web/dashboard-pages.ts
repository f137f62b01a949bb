import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COUNTRY_CODES, COUNTRIES, isCountryCode } from '../contract/countries.ts';
import { AppError, isAppError } from '../errors/app-error.ts';
import type { Session } from '../identity/identity.ts';
import {
  COUNTRY_PLAN_EUR_PER_MONTH,
  MIN_TOPUP_CREDITS,
  UNLIMITED_EUR_PER_MONTH,
  type OrderKind,
} from '../wallet/wallet.ts';
import { stackedBars } from './charts.ts';
import type { WebDeps } from './context.ts';
import { FormOnce } from './form-once.ts';
import { creditsHtml, csrfField, formatCredits, formatDate, html, layout, type SafeHtml } from './html.ts';
import { formField, sendPage, type FormBody } from './respond.ts';
import { DAY_MS, usageSummary, usageWindow, type UsageTotals } from './usage-summary.ts';

export interface SignedIn {
  session: Session;
  accountId: string;
}

/** The signed-in account of a dashboard request, or a redirect to the sign-in page. */
export function signedIn(request: FastifyRequest, reply: FastifyReply): SignedIn | null {
  const session = request.web.session;
  if (!session || session.accountId === null) {
    void reply.redirect('/signin', 303);
    return null;
  }
  return { session, accountId: session.accountId };
}

/** Overview (balance, lots, trial, usage chart), API keys, and plans and top-ups. */
export function dashboardPages(app: FastifyInstance, deps: WebDeps): void {
  const { wallet } = deps;
  const orderTokens = new FormOnce(wallet.store);
  const page = (request: FastifyRequest, who: SignedIn, title: string, active: string, body: SafeHtml) =>
    layout(
      { title, email: who.session.email, csrfToken: request.web.csrfToken, active, scripts: true },
      body,
    );

  app.get<{ Querystring: { days?: string } }>('/dashboard', async (request, reply) => {
    const who = signedIn(request, reply);
    if (!who) return reply;
    const { days, since, until } = usageWindow(Date.now(), request.query.days);
    const b = await wallet.balance({ accountId: who.accountId });
    const points = await wallet.usageSeries({ accountId: who.accountId, since, until, bucketMs: DAY_MS });
    const usage = usageSummary(points, since, days);
    const trial =
      b.plan === 'trial'
        ? html`<p class="ok" role="status">
            Trial: REST and MCP use is unmetered until <strong>${formatDate(b.trialEndsAt)}</strong>. In-app
            search draws on your credits.
          </p>`
        : b.trialEndsAt
          ? html`<p>Your trial ended ${formatDate(b.trialEndsAt)}.</p>`
          : '';
    const totalsTable = (title: string, rows: [string, UsageTotals][]) =>
      html`<table tabindex="0">
        <caption>
          ${title}
        </caption>
        <thead>
          <tr>
            <th scope="col">${title.startsWith('By country') ? 'Country' : 'Channel'}</th>
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
    // A new account has nothing to chart yet: what it needs is its first key and how to use it.
    const base = deps.publicUrl ?? `${request.protocol}://${request.host}`;
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
    const start =
      (await wallet.accountKeys(who.accountId)).length === 0
        ? html`<section class="start" aria-labelledby="start-h">
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
          </section>`
        : '';
    const body = html`<h1>Overview</h1>
      ${start}
      <section aria-labelledby="balance-h">
        <h2 id="balance-h">Balance</h2>
        <p class="big"><span id="balance">${creditsHtml(b.balance)}</span> credits</p>
        ${b.pending > 0 ? html`<p>${creditsHtml(b.pending)} credits held by calls in progress.</p>` : ''}
        <p>
          Plan: <strong>${planLabel(b.plan)}</strong>${
            b.subscriptions.filter((s) => s.active).length
              ? html`; country plans:
                ${b.subscriptions
                  .filter((s) => s.active)
                  .map((s) => `${s.country} (until ${formatDate(s.endsAt)})`)
                  .join(', ')}`
              : ''
          }
        </p>
        ${trial}
        <table tabindex="0">
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
        </table>
        <p><a href="/dashboard/billing">Top up or change plan</a></p>
      </section>
      <section aria-labelledby="usage-h">
        <h2 id="usage-h">Usage, last ${days} days</h2>
        <p>
          Show:
          ${[7, 30, 90].map((d) => (d === days ? html`<strong>${d} days</strong> ` : html`<a href="/dashboard?days=${d}">${d} days</a> `))}
        </p>
        ${stackedBars({ label: `Requests per day and channel, last ${days} days`, slots: usage.slots, series: usage.byChannel, unit: { one: 'request', many: 'requests' } })}
        ${totalsTable('By channel', usage.channelTotals)} ${totalsTable('By country', usage.countryTotals)}
      </section>`;
    return sendPage(reply, page(request, who, 'Overview', '/dashboard', body));
  });

  const keysPage = async (request: FastifyRequest, who: SignedIn, notice: SafeHtml | string) => {
    const keys = await wallet.accountKeys(who.accountId);
    return page(
      request,
      who,
      'API keys',
      '/dashboard/keys',
      html`<h1>API keys</h1>
        ${notice}
        <p>
          Send a key as <code>Authorization: Bearer &lt;key&gt;</code> to the REST API (<a href="/docs"
            >docs</a
          >) or the MCP server. Keep keys on your server; never put them in a browser or mobile app.
        </p>
        <form method="post" action="/dashboard/keys" class="row">
          ${csrfField(request.web.csrfToken)}
          <label for="key-name">Name</label>
          <input id="key-name" name="name" required maxlength="80" placeholder="e.g. CRM sync" />
          <button type="submit">Create API key</button>
        </form>
        <table id="keys" tabindex="0">
          <caption>
            Your keys
          </caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            ${
              keys.length === 0
                ? html`<tr>
                    <td colspan="5">No keys yet.</td>
                  </tr>`
                : ''
            }
            ${keys.map(
              (k) =>
                html`<tr data-key-id="${k.keyId}">
                  <td><code>rgd_…${k.hint}</code></td>
                  <td>${k.name ?? ''}</td>
                  <td>${formatDate(k.createdAt)}</td>
                  <td>${k.lastUsedAt ? formatDate(k.lastUsedAt) : 'never'}</td>
                  <td>
                    ${
                      k.revokedAt
                        ? html`revoked ${formatDate(k.revokedAt)}`
                        : html`<form method="post" action="/dashboard/keys/${k.keyId}/revoke" class="inline">
                            ${csrfField(request.web.csrfToken)}
                            <button type="submit" class="danger" aria-label="Revoke key ${k.name ?? k.hint}">
                              Revoke key
                            </button>
                          </form>`
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>`,
    );
  };

  app.get('/dashboard/keys', async (request, reply) => {
    const who = signedIn(request, reply);
    return who ? sendPage(reply, await keysPage(request, who, '')) : reply;
  });

  app.post<{ Body: FormBody }>('/dashboard/keys', async (request, reply) => {
    const who = signedIn(request, reply);
    if (!who) return reply;
    try {
      const created = await wallet.createAccountKey({
        accountId: who.accountId,
        name: formField(request.body, 'name'),
      });
      // The secret is in this one response and nowhere else (only its hash is stored); no-store keeps it out of caches.
      return sendPage(
        reply,
        await keysPage(
          request,
          who,
          html`<section class="newkey" aria-labelledby="newkey-h">
            <h2 id="newkey-h">Your new API key</h2>
            <p>Copy it now: it is shown only this once.</p>
            <p class="row">
              <input id="new-key" readonly value="${created.key}" aria-label="New API key" />
              <button type="button" data-copy="new-key">Copy</button>
            </p>
          </section>`,
        ),
      );
    } catch (err) {
      if (isAppError(err) && err.status < 500) {
        return sendPage(
          reply.code(422),
          await keysPage(request, who, html`<p class="error" role="alert">${err.message}</p>`),
        );
      }
      throw err;
    }
  });

  app.post<{ Params: { keyId: string }; Body: FormBody }>(
    '/dashboard/keys/:keyId/revoke',
    async (request, reply) => {
      const who = signedIn(request, reply);
      if (!who) return reply;
      const key = (await wallet.accountKeys(who.accountId)).find(
        (k) => k.keyId === request.params.keyId && k.revokedAt === null,
      );
      // The first click only asks: revoking cannot be undone and breaks every client using the key at once.
      if (key && formField(request.body, 'confirm') !== 'yes') {
        const keyName = key.name ?? `rgd_…${key.hint}`;
        return sendPage(
          reply,
          await keysPage(
            request,
            who,
            html`<section class="confirm" aria-labelledby="confirm-h">
              <h2 id="confirm-h" tabindex="-1">Revoke key ${keyName}?</h2>
              <p>Every program using this key gets 401 from its next call on. This cannot be undone.</p>
              <form method="post" action="/dashboard/keys/${key.keyId}/revoke" class="row">
                ${csrfField(request.web.csrfToken)}
                <input type="hidden" name="confirm" value="yes" />
                <button type="submit" class="danger">Yes, revoke key ${keyName}</button>
                <a href="/dashboard/keys">Cancel, keep the key</a>
              </form>
            </section>`,
          ),
        );
      }
      try {
        await wallet.revokeAccountKey({ accountId: who.accountId, keyId: request.params.keyId });
      } catch (err) {
        if (isAppError(err) && err.code === 'not_found') {
          return sendPage(
            reply.code(404),
            await keysPage(request, who, html`<p class="error" role="alert">No such API key.</p>`),
          );
        }
        throw err;
      }
      return reply.redirect('/dashboard/keys', 303);
    },
  );

  const billingPage = async (request: FastifyRequest, who: SignedIn, notice: SafeHtml | string) => {
    const b = await wallet.balance({ accountId: who.accountId });
    const orders = await wallet.listOrders({ accountId: who.accountId, limit: 20 });
    const active = new Set(b.subscriptions.filter((s) => s.active).map((s) => s.country));
    return page(
      request,
      who,
      'Plans and top-ups',
      '/dashboard/billing',
      html`<h1>Plans and top-ups</h1>
        ${notice}
        <p>
          Plan: <strong>${planLabel(b.plan)}</strong>. Balance: ${creditsHtml(b.balance)} credits (1 credit =
          1 euro).
        </p>
        <section aria-labelledby="topup-h">
          <h2 id="topup-h">Top up credits</h2>
          <p>
            Top-up credits never expire. Minimum ${MIN_TOPUP_CREDITS} credits. Pay by invoice; the credits
            arrive when the payment is confirmed.
          </p>
          <form method="post" action="/dashboard/billing/orders" class="row">
            ${csrfField(request.web.csrfToken)}
            <input type="hidden" name="kind" value="topup" />
            <label for="credits">Credits</label>
            <input
              id="credits"
              name="credits"
              type="number"
              min="${MIN_TOPUP_CREDITS}"
              step="1"
              value="${MIN_TOPUP_CREDITS}"
              required
            />
            <button type="submit">Order top-up</button>
          </form>
        </section>
        <section aria-labelledby="plans-h">
          <h2 id="plans-h">Plans</h2>
          <table tabindex="0">
            <caption>
              Row prices per country (credits per returned row)
            </caption>
            <thead>
              <tr>
                <th scope="col">Country</th>
                <th scope="col">Price</th>
                <th scope="col">Country plan</th>
              </tr>
            </thead>
            <tbody>
              ${COUNTRY_CODES.map(
                (c) =>
                  html`<tr>
                    <th scope="row">${COUNTRIES[c].name} (${c})</th>
                    <td>${wallet.prices[c]}</td>
                    <td>
                      ${
                        active.has(c)
                          ? 'active'
                          : html`<form method="post" action="/dashboard/billing/orders" class="inline">
                              ${csrfField(request.web.csrfToken)}<input
                                type="hidden"
                                name="kind"
                                value="country"
                              /><input type="hidden" name="country" value="${c}" />
                              <button type="submit">
                                Order ${COUNTRIES[c].name} plan, ${COUNTRY_PLAN_EUR_PER_MONTH} € / month
                              </button>
                            </form>`
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
          <p>A country plan waives metering for that country (REST, MCP and in-app).</p>
          <form method="post" action="/dashboard/billing/orders" class="row">
            ${csrfField(request.web.csrfToken)}
            <input type="hidden" name="kind" value="unlimited" />
            <span
              >Unlimited API and MCP plan: every country unmetered, ${UNLIMITED_EUR_PER_MONTH} € /
              month.</span
            >
            <button type="submit" ${b.plan === 'unlimited' ? html`disabled` : ''}>
              Order Unlimited, ${UNLIMITED_EUR_PER_MONTH} € / month
            </button>
          </form>
        </section>
        <section aria-labelledby="orders-h">
          <h2 id="orders-h">Orders</h2>
          <table id="orders" tabindex="0" aria-labelledby="orders-h">
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">What</th>
                <th scope="col">Amount</th>
                <th scope="col">Invoice</th>
                <th scope="col">State</th>
                <th scope="col">Placed</th>
              </tr>
            </thead>
            <tbody>
              ${
                orders.length === 0
                  ? html`<tr>
                      <td colspan="6">No orders yet.</td>
                    </tr>`
                  : ''
              }
              ${orders.map(
                (o) =>
                  html`<tr>
                    <td>${o.orderId}</td>
                    <td>${orderLabel(o.kind, o.country)}</td>
                    <td>${creditsHtml(o.amount)} €</td>
                    <td>${o.reference}</td>
                    <td>${o.state}</td>
                    <td>${formatDate(o.createdAt)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </section>`,
    );
  };

  app.get('/dashboard/billing', async (request, reply) => {
    const who = signedIn(request, reply);
    return who ? sendPage(reply, await billingPage(request, who, '')) : reply;
  });

  app.post<{ Body: FormBody }>('/dashboard/billing/orders', async (request, reply) => {
    const who = signedIn(request, reply);
    if (!who) return reply;
    const kind = formField(request.body, 'kind') as OrderKind;
    const country = formField(request.body, 'country');
    try {
      const credits = kind === 'topup' ? topupCredits(formField(request.body, 'credits')) : 0;
      const amount =
        kind === 'topup'
          ? credits
          : kind === 'unlimited'
            ? UNLIMITED_EUR_PER_MONTH
            : COUNTRY_PLAN_EUR_PER_MONTH;
      if (kind !== 'topup' && kind !== 'unlimited' && kind !== 'country') {
        throw new AppError('validation_failed', 'order kind must be topup, unlimited or country');
      }
      if (kind === 'country' && !isCountryCode(country)) {
        throw new AppError('validation_failed', 'unknown country');
      }
      // The first click only asks: an order sends an invoice, so it must be what the customer meant.
      if (formField(request.body, 'confirm') !== 'yes') {
        const what = orderLabel(kind, country || null);
        const price = kind === 'topup' ? `${formatCredits(amount)} €` : `${amount} € / month`;
        return sendPage(
          reply,
          await billingPage(
            request,
            who,
            html`<section class="confirm" aria-labelledby="confirm-h">
              <h2 id="confirm-h" tabindex="-1">Place this order?</h2>
              <p>
                ${what}: <strong>${price}</strong>. You get an invoice by the ${deps.payments.name} provider;
                ${kind === 'topup' ? 'the credits arrive' : 'the plan starts'} when the payment is confirmed.
              </p>
              <form method="post" action="/dashboard/billing/orders" class="row">
                ${csrfField(request.web.csrfToken)}
                <input type="hidden" name="kind" value="${kind}" />
                ${kind === 'country' ? html`<input type="hidden" name="country" value="${country}" />` : ''}
                ${kind === 'topup' ? html`<input type="hidden" name="credits" value="${credits}" />` : ''}
                <input type="hidden" name="confirm" value="yes" />
                <input type="hidden" name="_once" value="${await orderTokens.issue(who.accountId)}" />
                <button type="submit">Place order for ${what}, ${price}</button>
                <a href="/dashboard/billing">Cancel</a>
              </form>
            </section>`,
          ),
        );
      }
      // Spent before the provider is called: of two identical POSTs, to any replicas, only the first gets on.
      const once = formField(request.body, '_once');
      const spent = await orderTokens.spend(once, who.accountId);
      if (spent.state === 'used') {
        request.log.info({ kind }, 'repeated order POST: nothing ordered');
        const notice = spent.outcome ?? 'This order was already sent; it is listed once under Orders.';
        return sendPage(
          reply,
          await billingPage(request, who, html`<p class="ok" role="status">${notice}</p>`),
        );
      }
      if (spent.state === 'unknown') {
        return sendPage(
          reply.code(409),
          await billingPage(
            request,
            who,
            html`<p class="error" role="alert">
              This confirmation has expired or is not yours, so nothing was ordered. Please order again.
            </p>`,
          ),
        );
      }
      const start = deps.payments.start({
        accountId: who.accountId,
        email: who.session.email,
        amount,
        description: orderLabel(kind, country || null),
      });
      const order = await wallet.placeOrder({
        accountId: who.accountId,
        kind,
        ...(country && { country }),
        ...(kind === 'topup' && { credits }),
        provider: deps.payments.name,
        reference: start.reference,
      });
      request.log.info({ order: order.orderId, kind, amount }, 'order placed');
      const placed = `Order ${order.orderId} placed. ${start.instructions}`;
      await orderTokens.record(once, placed);
      return sendPage(
        reply,
        await billingPage(request, who, html`<p class="ok" role="status">${placed}</p>`),
      );
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      const text = err.message;
      return sendPage(
        reply.code(422),
        await billingPage(request, who, html`<p class="error" role="alert">${text}</p>`),
      );
    }
  });
}

/** Up to 9 digits: below the wallet's largest amount (1,000,000,000 credits). */
const TOPUP_DIGITS = /^[1-9][0-9]{0,8}$/;

/**
 * A top-up amount as the form's whole-number field sends it, checked before the confirmation page shows a
 * price. Number() would also take `0x20`, `1e300`, `Infinity`, `+20`, `20.0` or padding and put that on
 * the page and the invoice.
 */
function topupCredits(text: string): number {
  if (!TOPUP_DIGITS.test(text)) {
    throw new AppError(
      'validation_failed',
      `a top-up is a whole number of credits in plain digits (such as 50), at least ${MIN_TOPUP_CREDITS}`,
    );
  }
  const credits = Number(text);
  if (credits < MIN_TOPUP_CREDITS) {
    throw new AppError('validation_failed', `a top-up is at least ${MIN_TOPUP_CREDITS} credits`);
  }
  return credits;
}

function planLabel(plan: string): string {
  return plan === 'trial'
    ? 'Trial (pay per row after it)'
    : plan === 'unlimited'
      ? 'Unlimited'
      : 'Pay per row';
}

function orderLabel(kind: string, country: string | null): string {
  if (kind === 'topup') return 'Credit top-up';
  if (kind === 'unlimited') return 'Unlimited plan';
  const name = country && isCountryCode(country) ? COUNTRIES[country].name : (country ?? '');
  return `${name} plan`;
}

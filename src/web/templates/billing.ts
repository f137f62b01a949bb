import { COUNTRIES, COUNTRY_CODES, type CountryCode } from '../../contract/countries.ts';
import {
  COUNTRY_PLAN_EUR_PER_MONTH,
  MIN_TOPUP_CREDITS,
  UNLIMITED_EUR_PER_MONTH,
  type BalanceReport,
  type OrderInfo,
  type OrderKind,
} from '../../wallet/wallet.ts';
import { creditsHtml, csrfField, formatDate, html, type SafeHtml } from '../html.ts';
import { orderLabel, planLabel } from './labels.ts';

export interface BillingView {
  balance: BalanceReport;
  orders: OrderInfo[];
  /** Row prices in credits (Wallet.prices). */
  prices: Readonly<Record<CountryCode, number>>;
  csrfToken: string;
  /** Above the plan line: a question, an outcome or an error. */
  notice: SafeHtml | string;
}

/** Plans and top-ups: the top-up form, row prices with country plans, Unlimited, and the account's orders. */
export function billingBody(v: BillingView): SafeHtml {
  return html`<h1>Plans and top-ups</h1>
    ${v.notice}
    <p>
      Plan: <strong>${planLabel(v.balance.plan)}</strong>. Balance: ${creditsHtml(v.balance.balance)} credits
      (1 credit = 1 euro).
    </p>
    <section aria-labelledby="topup-h">
      <h2 id="topup-h">Top up credits</h2>
      <p>
        Top-up credits never expire. Minimum ${MIN_TOPUP_CREDITS} credits. Pay by invoice; the credits arrive
        when the payment is confirmed.
      </p>
      <form method="post" action="/dashboard/billing/orders" class="row">
        ${csrfField(v.csrfToken)}
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
    ${plansSection(v)} ${ordersSection(v.orders)}`;
}

function plansSection(v: BillingView): SafeHtml {
  const active = new Set(v.balance.subscriptions.filter((s) => s.active).map((s) => s.country));
  return html`<section aria-labelledby="plans-h">
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
              <td>${v.prices[c]}</td>
              <td>${active.has(c) ? 'active' : countryPlanButton(c, v.csrfToken)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <p>A country plan waives metering for that country (REST, MCP and in-app).</p>
    <form method="post" action="/dashboard/billing/orders" class="row">
      ${csrfField(v.csrfToken)}
      <input type="hidden" name="kind" value="unlimited" />
      <span>Unlimited API and MCP plan: every country unmetered, ${UNLIMITED_EUR_PER_MONTH} € / month.</span>
      <button type="submit" ${v.balance.plan === 'unlimited' ? html`disabled` : ''}>
        Order Unlimited, ${UNLIMITED_EUR_PER_MONTH} € / month
      </button>
    </form>
  </section>`;
}

function countryPlanButton(c: CountryCode, csrfToken: string): SafeHtml {
  return html`<form method="post" action="/dashboard/billing/orders" class="inline">
    ${csrfField(csrfToken)}<input type="hidden" name="kind" value="country" /><input
      type="hidden"
      name="country"
      value="${c}"
    />
    <button type="submit">Order ${COUNTRIES[c].name} plan, ${COUNTRY_PLAN_EUR_PER_MONTH} € / month</button>
  </form>`;
}

function ordersSection(orders: OrderInfo[]): SafeHtml {
  return html`<section aria-labelledby="orders-h">
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
  </section>`;
}

export interface OrderQuestion {
  kind: OrderKind;
  country: string;
  credits: number;
  /** What is ordered and its price, as the button and the invoice name them. */
  what: string;
  price: string;
  provider: string;
  csrfToken: string;
  /** The form's one-time token (FormOnce): a second POST of the same form orders nothing. */
  once: string;
}

/** An order sends an invoice, so it must be what the customer meant: the first click only asks. */
export function orderQuestion(q: OrderQuestion): SafeHtml {
  return html`<section class="confirm" aria-labelledby="confirm-h">
    <h2 id="confirm-h" tabindex="-1">Place this order?</h2>
    <p>
      ${q.what}: <strong>${q.price}</strong>. You get an invoice by the ${q.provider} provider;
      ${q.kind === 'topup' ? 'the credits arrive' : 'the plan starts'} when the payment is confirmed.
    </p>
    <form method="post" action="/dashboard/billing/orders" class="row">
      ${csrfField(q.csrfToken)}
      <input type="hidden" name="kind" value="${q.kind}" />
      ${q.kind === 'country' ? html`<input type="hidden" name="country" value="${q.country}" />` : ''}
      ${q.kind === 'topup' ? html`<input type="hidden" name="credits" value="${q.credits}" />` : ''}
      <input type="hidden" name="confirm" value="yes" />
      <input type="hidden" name="_once" value="${q.once}" />
      <button type="submit">Place order for ${q.what}, ${q.price}</button>
      <a href="/dashboard/billing">Cancel</a>
    </form>
  </section>`;
}

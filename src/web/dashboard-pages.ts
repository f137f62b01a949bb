import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isCountryCode } from '../contract/countries.ts';
import { AppError, isAppError } from '../errors/app-error.ts';
import type { Session } from '../identity/identity.ts';
import {
  COUNTRY_PLAN_EUR_PER_MONTH,
  MIN_TOPUP_CREDITS,
  UNLIMITED_EUR_PER_MONTH,
  type OrderKind,
} from '../wallet/wallet.ts';
import type { WebDeps } from './context.ts';
import { FormOnce } from './form-once.ts';
import { formatCredits, layout, type SafeHtml } from './html.ts';
import { formField, sendPage, type FormBody } from './respond.ts';
import { billingBody, orderQuestion } from './templates/billing.ts';
import { keysBody, newKeyNotice, revokeQuestion } from './templates/keys.ts';
import { orderLabel } from './templates/labels.ts';
import { errorNotice, statusNotice } from './templates/notices.ts';
import { overviewBody } from './templates/overview.ts';
import { DAY_MS, usageSummary, usageWindow } from './usage-summary.ts';

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

/** Overview (balance, lots, trial, usage chart), API keys, and plans and top-ups; templates in templates/. */
export function dashboardPages(app: FastifyInstance, deps: WebDeps): void {
  overviewRoutes(app, deps);
  keyRoutes(app, deps);
  billingRoutes(app, deps);
}

function page(request: FastifyRequest, who: SignedIn, title: string, active: string, body: SafeHtml): string {
  return layout(
    { title, email: who.session.email, csrfToken: request.web.csrfToken, active, scripts: true },
    body,
  );
}

function overviewRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { wallet } = deps;
  app.get<{ Querystring: { days?: string } }>('/dashboard', async (request, reply) => {
    const who = signedIn(request, reply);
    if (!who) return reply;
    const { days, since, until } = usageWindow(Date.now(), request.query.days);
    const balance = await wallet.balance({ accountId: who.accountId });
    const points = await wallet.usageSeries({ accountId: who.accountId, since, until, bucketMs: DAY_MS });
    const usage = usageSummary(points, since, days);
    // An account whose only keys are MCP clients' grants has made no key of its own yet.
    const startBase =
      (await wallet.accountKeys(who.accountId)).length === 0
        ? (deps.publicUrl ?? `${request.protocol}://${request.host}`)
        : null;
    const body = overviewBody({ balance, days, usage, startBase });
    return sendPage(reply, page(request, who, 'Overview', '/dashboard', body));
  });
}

function keyRoutes(app: FastifyInstance, { wallet }: WebDeps): void {
  const keysPage = async (request: FastifyRequest, who: SignedIn, notice: SafeHtml | string) => {
    // The account's own keys: those of MCP clients' grants are on the Connected clients page instead.
    const keys = await wallet.accountKeys(who.accountId);
    const body = keysBody({ keys, csrfToken: request.web.csrfToken, notice });
    return page(request, who, 'API keys', '/dashboard/keys', body);
  };

  app.get('/dashboard/keys', async (request, reply) => {
    const who = signedIn(request, reply);
    return who ? sendPage(reply, await keysPage(request, who, '')) : reply;
  });

  app.post<{ Body: FormBody }>('/dashboard/keys', async (request, reply) => {
    const who = signedIn(request, reply);
    if (!who) return reply;
    try {
      const mode = formField(request.body, 'mode') || 'live';
      if (mode !== 'live' && mode !== 'test') {
        throw new AppError('validation_failed', 'choose a live key or a test key');
      }
      const created = await wallet.createAccountKey({
        accountId: who.accountId,
        name: formField(request.body, 'name'),
        mode,
      });
      // The secret is in this one response and nowhere else (only its hash is stored); no-store keeps it out of caches.
      return sendPage(reply, await keysPage(request, who, newKeyNotice(created.key, created.mode)));
    } catch (err) {
      if (isAppError(err) && err.status < 500) {
        return sendPage(reply.code(422), await keysPage(request, who, errorNotice(err.message)));
      }
      throw err;
    }
  });

  app.post<{ Params: { keyId: string }; Body: FormBody }>(
    '/dashboard/keys/:keyId/revoke',
    async (request, reply) => {
      const who = signedIn(request, reply);
      if (!who) return reply;
      const key = (await wallet.accountKeys(who.accountId)).find((k) => k.keyId === request.params.keyId);
      // Not one of the account's own keys (another account's, or an MCP client's grant key, which is
      // disconnected on the Connected clients page with its grant and tokens): as if there were none.
      if (!key) {
        return sendPage(reply.code(404), await keysPage(request, who, errorNotice('No such API key.')));
      }
      // The first click only asks: revoking cannot be undone and breaks every client using the key at once.
      if (key.revokedAt === null && formField(request.body, 'confirm') !== 'yes') {
        const question = revokeQuestion(key, request.web.csrfToken);
        return sendPage(reply, await keysPage(request, who, question));
      }
      await wallet.revokeAccountKey({ accountId: who.accountId, keyId: key.keyId });
      return reply.redirect('/dashboard/keys', 303);
    },
  );
}

function billingRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { wallet } = deps;
  const orderTokens = new FormOnce(wallet.store);
  const billingPage = async (request: FastifyRequest, who: SignedIn, notice: SafeHtml | string) => {
    const balance = await wallet.balance({ accountId: who.accountId });
    const orders = await wallet.listOrders({ accountId: who.accountId, limit: 20 });
    const csrfToken = request.web.csrfToken;
    const body = billingBody({ balance, orders, prices: wallet.prices, csrfToken, notice });
    return page(request, who, 'Plans and top-ups', '/dashboard/billing', body);
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
      const { credits, amount } = orderAmount(kind, country, formField(request.body, 'credits'));
      const what = orderLabel(kind, country || null);
      // The first click only asks: an order sends an invoice, so it must be what the customer meant.
      if (formField(request.body, 'confirm') !== 'yes') {
        const price = kind === 'topup' ? `${formatCredits(amount)} €` : `${amount} € / month`;
        const once = await orderTokens.issue(who.accountId);
        const question = orderQuestion({
          ...{ kind, country, credits, what, price, once },
          ...{ provider: deps.payments.name, csrfToken: request.web.csrfToken },
        });
        return sendPage(reply, await billingPage(request, who, question));
      }
      // Spent before the provider is called: of two identical POSTs, to any replicas, only the first gets on.
      const once = formField(request.body, '_once');
      const spent = await orderTokens.spend(once, who.accountId);
      if (spent.state === 'used') {
        request.log.info({ kind }, 'repeated order POST: nothing ordered');
        const notice = spent.outcome ?? 'This order was already sent; it is listed once under Orders.';
        return sendPage(reply, await billingPage(request, who, statusNotice(notice)));
      }
      if (spent.state === 'unknown') {
        const notice = errorNotice(
          'This confirmation has expired or is not yours, so nothing was ordered. Please order again.',
        );
        return sendPage(reply.code(409), await billingPage(request, who, notice));
      }
      const start = deps.payments.start({
        accountId: who.accountId,
        email: who.session.email,
        amount,
        description: what,
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
      return sendPage(reply, await billingPage(request, who, statusNotice(placed)));
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      return sendPage(reply.code(422), await billingPage(request, who, errorNotice(err.message)));
    }
  });
}

/** The order a form asks for, checked before the confirmation page shows its price: credits and euro. */
function orderAmount(
  kind: OrderKind,
  country: string,
  creditsField: string,
): { credits: number; amount: number } {
  const credits = kind === 'topup' ? topupCredits(creditsField) : 0;
  const amount =
    kind === 'topup' ? credits : kind === 'unlimited' ? UNLIMITED_EUR_PER_MONTH : COUNTRY_PLAN_EUR_PER_MONTH;
  if (kind !== 'topup' && kind !== 'unlimited' && kind !== 'country') {
    throw new AppError('validation_failed', 'order kind must be topup, unlimited or country');
  }
  if (kind === 'country' && !isCountryCode(country)) {
    throw new AppError('validation_failed', 'unknown country');
  }
  return { credits, amount };
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

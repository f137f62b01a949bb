import crypto from 'node:crypto';
import type { CountryCode } from '../../contract/countries.ts';
import { AppError } from '../../errors/app-error.ts';
import { Accounts } from '../accounts.ts';
import { DAY_MS, toIso } from '../clock.ts';
import { creditsToMicro, microToCredits } from '../money.ts';
import type { Queryable } from '../store.ts';
import type { OrderInfo, OrderKind, OrderState, Wallet } from '../wallet-api.ts';
import { parseCountry, type PartContext } from './context.ts';
import { MIN_TOPUP_CREDITS } from './credits.ts';

/**
 * Spec 5.6 plan prices in euro per month. A confirmed country plan runs for PLAN_PERIOD_MS; the accounts table
 * has no end date for Unlimited, so a confirmed Unlimited order lasts until an operator sets the plan back.
 */
export const UNLIMITED_EUR_PER_MONTH = 1500;
export const COUNTRY_PLAN_EUR_PER_MONTH = 300;
export const PLAN_PERIOD_MS = 30 * DAY_MS;

export type OrdersPart = Pick<Wallet, 'placeOrder' | 'confirmOrder' | 'cancelOrder' | 'listOrders'>;

/** Top-ups and plan purchases: placed pending, then confirmed (paid) or cancelled, each in one transaction. */
export function ordersPart({ store, clock, ledger }: PartContext): OrdersPart {
  return {
    placeOrder: (input) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, { accountId: input.accountId });
        const { amount, country } = orderAmount(input);
        const id = `ord_${crypto.randomBytes(6).toString('hex')}`;
        await q.run(
          `INSERT INTO orders (id, account_id, kind, country, amount, provider, reference, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          [id, account.id, input.kind, country, amount, input.provider, input.reference, clock()],
        );
        return orderInfo((await orderById(q, id)) as OrderRow);
      }),

    confirmOrder: (orderId) =>
      store.tx(async (q) => {
        const order = await pendingOrder(q, orderId);
        const now = clock();
        let lotId: number | null = null;
        if (order.kind === 'topup') {
          lotId = await ledger.grant(q, order.account_id, 'topup', order.amount, null, now);
        } else if (order.kind === 'unlimited') {
          await Accounts.setPlan(q, order.account_id, 'unlimited');
        } else if (order.country) {
          await Accounts.subscribe(q, order.account_id, order.country, now, now + PLAN_PERIOD_MS);
        }
        await q.run(RESOLVE_ORDER, ['paid', now, lotId, order.id]);
        return orderInfo((await orderById(q, order.id)) as OrderRow);
      }),

    cancelOrder: (orderId) =>
      store.tx(async (q) => {
        const order = await pendingOrder(q, orderId);
        await q.run(RESOLVE_ORDER, ['cancelled', clock(), null, order.id]);
        return orderInfo((await orderById(q, order.id)) as OrderRow);
      }),

    listOrders: async (filter = {}) =>
      (
        await store.all<OrderRow>(
          `${SELECT_ORDERS}
           WHERE (CAST(? AS TEXT) IS NULL OR o.account_id = ?) AND (CAST(? AS TEXT) IS NULL OR o.state = ?)
           ORDER BY o.created_at DESC, o.id DESC LIMIT ?`,
          [
            filter.accountId ?? null,
            filter.accountId ?? null,
            filter.state ?? null,
            filter.state ?? null,
            Math.max(1, Math.min(filter.limit ?? 100, 1000)),
          ],
        )
      ).map(orderInfo),
  };
}

/** What an order costs in micro-euro (a top-up: the credits it grants), and the country of a country plan. */
function orderAmount(input: { kind: OrderKind; country?: string; credits?: number }): {
  amount: number;
  country: CountryCode | null;
} {
  if (input.kind === 'topup') {
    const amount = creditsToMicro(input.credits ?? 0, 'credits');
    if (amount < creditsToMicro(MIN_TOPUP_CREDITS)) {
      throw new AppError('validation_failed', `a top-up is at least ${MIN_TOPUP_CREDITS} credits`);
    }
    return { amount, country: null };
  }
  if (input.kind === 'unlimited') return { amount: creditsToMicro(UNLIMITED_EUR_PER_MONTH), country: null };
  if (input.kind === 'country') {
    const country = parseCountry(input.country ?? '');
    return { amount: creditsToMicro(COUNTRY_PLAN_EUR_PER_MONTH), country };
  }
  throw new AppError('validation_failed', 'order kind must be topup, unlimited or country');
}

interface OrderRow {
  id: string;
  account_id: string;
  email: string;
  kind: OrderKind;
  country: CountryCode | null;
  amount: number;
  provider: string;
  reference: string;
  state: OrderState;
  created_at: number;
  resolved_at: number | null;
}

const SELECT_ORDERS = `SELECT o.id, o.account_id, a.email, o.kind, o.country, o.amount, o.provider, o.reference,
  o.state, o.created_at, o.resolved_at FROM orders o JOIN accounts a ON a.id = o.account_id`;
const RESOLVE_ORDER = `UPDATE orders SET state = ?, resolved_at = ?, lot_id = ? WHERE id = ? AND state = 'pending'`;

function orderInfo(row: OrderRow): OrderInfo {
  return {
    orderId: row.id,
    accountId: row.account_id,
    email: row.email,
    kind: row.kind,
    country: row.country,
    amount: microToCredits(row.amount),
    provider: row.provider,
    reference: row.reference,
    state: row.state,
    createdAt: toIso(row.created_at) ?? '',
    resolvedAt: toIso(row.resolved_at),
  };
}

function orderById(q: Queryable, orderId: string): Promise<OrderRow | undefined> {
  return q.get<OrderRow>(`${SELECT_ORDERS} WHERE o.id = ?`, [orderId]);
}

async function pendingOrder(q: Queryable, orderId: string): Promise<OrderRow> {
  const lock = q.dialect === 'postgres' ? ' FOR UPDATE OF o' : '';
  const row = await q.get<OrderRow>(`${SELECT_ORDERS} WHERE o.id = ?${lock}`, [orderId]);
  if (!row) throw new AppError('not_found', `no order ${orderId}`);
  if (row.state !== 'pending') throw new AppError('validation_failed', `order ${orderId} is ${row.state}`);
  return row;
}

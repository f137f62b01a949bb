import { parseArgs } from 'node:util';
import type { Config } from '../../config.ts';
import { walletOptions } from '../../wallet/from-config.ts';
import { openWallet, type OrderInfo, type OrderState } from '../../wallet/wallet.ts';
import { EXIT, UsageError } from '../errors.ts';
import { out } from '../output.ts';

export const ordersHelp = `regdata orders list [--state pending|paid|cancelled] [--email <e>] [--limit <n>] [--json]
regdata orders confirm <order-id> [--json]
regdata orders cancel <order-id> [--json]

Top-ups and plans ordered in the dashboard are paid by invoice (quote the reference on the transfer).
confirm: the payment arrived; a top-up's credits are granted (never expiring), a country plan starts for
  30 days, Unlimited is set until the plan is changed back.
cancel: the order is dropped; nothing is granted.`;

const STATES: readonly OrderState[] = ['pending', 'paid', 'cancelled'];

export async function ordersCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      state: { type: 'string' },
      email: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const wallet = await openWallet(walletOptions(config, { sweepIntervalMs: 0 }));
  try {
    const show = (o: OrderInfo | OrderInfo[]) => {
      if (values.json) return out.json(o);
      const list = Array.isArray(o) ? o : [o];
      if (list.length === 0) return out.info('no orders');
      out.table(
        list.map((x) => ({
          order: x.orderId,
          email: x.email,
          kind: x.kind,
          country: x.country,
          eur: x.amount.toFixed(2),
          reference: x.reference,
          state: x.state,
          created: x.createdAt,
        })),
      );
    };
    if (sub === 'list') {
      const state = values.state as OrderState | undefined;
      if (state !== undefined && !STATES.includes(state))
        throw new UsageError('--state must be pending, paid or cancelled');
      const limit = values.limit === undefined ? 100 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
      const accountId = values.email ? (await wallet.balance({ email: values.email })).accountId : undefined;
      show(await wallet.listOrders({ ...(accountId && { accountId }), ...(state && { state }), limit }));
      return EXIT.ok;
    }
    if (sub === 'confirm' || sub === 'cancel') {
      const id = positionals[0];
      if (!id) throw new UsageError(`regdata orders ${sub} <order-id>`);
      show(await (sub === 'confirm' ? wallet.confirmOrder(id) : wallet.cancelOrder(id)));
      return EXIT.ok;
    }
    throw new UsageError(ordersHelp);
  } finally {
    await wallet.close();
  }
}

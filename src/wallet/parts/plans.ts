import { AppError } from '../../errors/app-error.ts';
import { Accounts, planName } from '../accounts.ts';
import { toIso } from '../clock.ts';
import type { Wallet } from '../wallet-api.ts';
import { parseCountry, type PartContext } from './context.ts';

export type PlansPart = Pick<Wallet, 'setPlan' | 'addSubscription' | 'removeSubscription'>;

/** An account's plan (pay-as-you-go or Unlimited) and its country subscriptions, set by an operator. */
export function plansPart({ store, clock }: PartContext): PlansPart {
  return {
    setPlan: (input) =>
      store.tx(async (q) => {
        if (input.plan !== 'payg' && input.plan !== 'unlimited') {
          throw new AppError('validation_failed', 'plan must be payg or unlimited');
        }
        const account = await Accounts.resolve(q, input);
        await Accounts.setPlan(q, account.id, input.plan);
        return { accountId: account.id, plan: planName({ ...account, plan: input.plan }, clock()) };
      }),

    addSubscription: (input) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, input);
        const country = parseCountry(input.country);
        const now = clock();
        const endsAt = input.until ? input.until.getTime() : null;
        if (endsAt !== null && !(endsAt > now))
          throw new AppError('validation_failed', 'until must be in the future');
        await Accounts.subscribe(q, account.id, country, now, endsAt);
        return { accountId: account.id, country, startedAt: toIso(now) ?? '', endsAt: toIso(endsAt) };
      }),

    removeSubscription: (input) =>
      store.tx(async (q) => {
        const account = await Accounts.resolve(q, input);
        const country = parseCountry(input.country);
        return {
          accountId: account.id,
          country,
          ended: await Accounts.unsubscribe(q, account.id, country, clock()),
        };
      }),
  };
}

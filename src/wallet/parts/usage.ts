import { AppError } from '../../errors/app-error.ts';
import { Accounts } from '../accounts.ts';
import { toIso } from '../clock.ts';
import { microToCredits } from '../money.ts';
import type { UsageLog } from '../usage.ts';
import { type UsageRow } from '../usage.ts';
import type { UsageReport, Wallet } from '../wallet-api.ts';
import type { PartContext } from './context.ts';

export type UsagePart = Pick<Wallet, 'usage' | 'usageSeries'>;

/** What an account's calls used: the operator's report (`usage`) and the dashboard's time series. */
export function usagePart(
  { store, clock }: PartContext,
  usage: UsageLog,
  settled: () => Promise<void>,
): UsagePart {
  return {
    usage: async (input) => {
      await settled();
      const account = await Accounts.resolve(store, input);
      const to = input.until ? input.until.getTime() : clock() + 1;
      const from = input.since ? input.since.getTime() : 0;
      const limit = Math.max(1, Math.min(input.limit ?? 100, 10_000));
      const groups = await usage.summary(store, account.id, from, to);
      const records = await usage.list(store, account.id, from, to, limit);
      return {
        accountId: account.id,
        email: account.email,
        from: toIso(from) ?? '',
        to: toIso(to) ?? '',
        totals: {
          requests: groups.reduce((s, g) => s + g.requests, 0),
          rows: groups.reduce((s, g) => s + g.rows, 0),
          credits: microToCredits(groups.reduce((s, g) => s + g.charged, 0)),
        },
        byOperation: groups.map((g) => ({
          operation: g.operation,
          country: g.country,
          requests: g.requests,
          rows: g.rows,
          credits: microToCredits(g.charged),
        })),
        records: records.map(usageRecord),
      };
    },

    usageSeries: async (input) => {
      await settled();
      const from = input.since.getTime();
      const to = input.until.getTime();
      const bucket = Math.trunc(input.bucketMs);
      if (!(bucket > 0) || !(to > from)) {
        throw new AppError('validation_failed', 'usage series needs since < until and a positive bucket');
      }
      // Integer division in both dialects: created_at is an integer column and the bound values integers
      // (PostgreSQL infers bigint for them from the column).
      const groups = await store.all<{
        bucket: number;
        channel: string;
        country: string;
        requests: number;
        rows: number;
        charged: number;
      }>(
        `SELECT (created_at - ?) / ? AS bucket, channel, country, count(*) AS requests,
           coalesce(sum(rows_returned), 0) AS rows, sum(charged) AS charged
         FROM usage_records WHERE account_id = ? AND created_at >= ? AND created_at < ?
           AND outcome IN ('charged', 'free')
         GROUP BY 1, channel, country ORDER BY 1, channel, country`,
        [from, bucket, input.accountId, from, to],
      );
      return groups.map((g) => ({
        bucketStart: toIso(from + g.bucket * bucket) ?? '',
        channel: g.channel,
        country: g.country,
        requests: g.requests,
        rows: g.rows,
        credits: microToCredits(g.charged),
      }));
    },
  };
}

function usageRecord(r: UsageRow): UsageReport['records'][number] {
  return {
    id: r.id,
    at: toIso(r.created_at) ?? '',
    keyId: r.key_id,
    channel: r.channel,
    operation: r.operation,
    country: r.country,
    outcome: r.outcome,
    freeReason: r.free_reason,
    rowsReturned: r.rows_returned,
    creditsReserved: microToCredits(r.reserved),
    creditsCharged: microToCredits(r.charged),
  };
}

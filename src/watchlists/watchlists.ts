import { randomBytes } from 'node:crypto';
import type { CountryCode } from '../contract/countries.ts';
import { AppError, validationError } from '../errors/app-error.ts';
import { Accounts } from '../wallet/accounts.ts';
import type { Clock } from '../wallet/clock.ts';
import type { Queryable, WalletStore } from '../wallet/store.ts';

/**
 * Watchlists (issue 31): per account, a list of companies or a saved search of one country, kept in the
 * wallet's database so that every replica and the ingest's publish see the same ones. Managing them is free
 * account management; what they cost is the events a publish makes of them (events.ts).
 */

/** At most this many watchlists per account: each saved search is evaluated twice at every publish. */
export const MAX_WATCHLISTS = 100;
/** Companies per list on pay-as-you-go; on the Unlimited plan or the country's plan, LARGE_LIST. */
export const SMALL_LIST = 10_000;
export const LARGE_LIST = 100_000;

export type WatchlistKind = 'companies' | 'search';

export interface Watchlist {
  id: string;
  name: string;
  country: CountryCode;
  kind: WatchlistKind;
  /** The saved search as /count's JSON arguments without `country`; null for a list of companies. */
  search: Record<string, unknown> | null;
  /** Companies on the list (0 for a saved search). */
  companies: number;
  created_at: string;
}

/** What a publish reads: every watchlist of the countries it writes, with its account. */
export interface PublishWatchlist {
  id: string;
  accountId: string;
  country: CountryCode;
  kind: WatchlistKind;
  search: Record<string, unknown> | null;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  country: CountryCode;
  kind: WatchlistKind;
  search: string | null;
  created_at: number;
  companies: number;
}

const toWatchlist = (r: Row): Watchlist => ({
  id: r.id,
  name: r.name,
  country: r.country,
  kind: r.kind,
  search: r.search === null ? null : (JSON.parse(r.search) as Record<string, unknown>),
  companies: Number(r.companies),
  created_at: new Date(Number(r.created_at)).toISOString(),
});

const SELECT = `SELECT w.id, w.account_id, w.name, w.country, w.kind, w.search, w.created_at,
  (SELECT count(*) FROM watchlist_companies c WHERE c.watchlist_id = w.id) AS companies FROM watchlists w`;

const notFound = (id: string) => new AppError('not_found', `no watchlist ${id} in this account`);

/** Inside the caller's transaction: the events not yet charged to the account are marked; how many. */
export async function claimEventCharges(
  q: Queryable,
  accountId: string,
  eventIds: readonly string[],
  now: number,
): Promise<number> {
  let fresh = 0;
  for (const id of eventIds) {
    fresh += (
      await q.run(
        'INSERT INTO event_charges (account_id, event_id, charged_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
        [accountId, id, now],
      )
    ).changes;
  }
  return fresh;
}

export class Watchlists {
  constructor(
    private readonly store: WalletStore,
    private readonly clock: Clock,
  ) {}

  async list(accountId: string): Promise<Watchlist[]> {
    const rows = await this.store.all<Row>(`${SELECT} WHERE w.account_id = ? ORDER BY w.created_at, w.id`, [
      accountId,
    ]);
    return rows.map(toWatchlist);
  }

  /** One watchlist of the account, without its companies; 404 when it is not the account's. */
  async one(accountId: string, id: string): Promise<Watchlist> {
    const row = await this.store.get<Row>(`${SELECT} WHERE w.id = ? AND w.account_id = ?`, [id, accountId]);
    if (!row) throw notFound(id);
    return toWatchlist(row);
  }

  async get(accountId: string, id: string): Promise<Watchlist & { registrikoodid: string[] }> {
    const list = await this.one(accountId, id);
    const codes = await this.store.all<{ registrikood: string }>(
      'SELECT registrikood FROM watchlist_companies WHERE watchlist_id = ? ORDER BY registrikood',
      [id],
    );
    return { ...list, registrikoodid: codes.map((c) => c.registrikood) };
  }

  /** A new watchlist; codes and the search are validated by the caller (services/watchlists.ts). */
  async create(
    accountId: string,
    input: { name: string; country: CountryCode } & (
      { companies: readonly string[] } | { search: Record<string, unknown> }
    ),
  ): Promise<Watchlist> {
    const id = `wl_${randomBytes(12).toString('base64url')}`;
    await this.store.tx(async (q) => {
      // Two creates at once must not both pass the count (SQLite's write transactions are serial already).
      if (q.dialect === 'postgres')
        await q.get('SELECT id FROM accounts WHERE id = ? FOR UPDATE', [accountId]);
      const n = await q.get<{ n: number }>('SELECT count(*) AS n FROM watchlists WHERE account_id = ?', [
        accountId,
      ]);
      if (Number(n?.n ?? 0) >= MAX_WATCHLISTS) {
        throw validationError([
          {
            loc: ['body'],
            param: 'body',
            msg: `an account has at most ${MAX_WATCHLISTS} watchlists; delete one first`,
            type: 'too_many_watchlists',
          },
        ]);
      }
      const search = 'search' in input ? JSON.stringify(input.search) : null;
      await q.run(
        'INSERT INTO watchlists (id, account_id, name, country, kind, search, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [
          id,
          accountId,
          input.name,
          input.country,
          search === null ? 'companies' : 'search',
          search,
          this.clock(),
        ],
      );
      if ('companies' in input) await this.insertCodes(q, accountId, id, input.country, input.companies);
    });
    return this.one(accountId, id);
  }

  /** Adds companies to a list; those already on it are kept once. Returns the list. */
  async addCompanies(accountId: string, id: string, codes: readonly string[]): Promise<Watchlist> {
    await this.store.tx(async (q) => {
      const row = await q.get<Row>(`${SELECT} WHERE w.id = ? AND w.account_id = ?`, [id, accountId]);
      if (!row) throw notFound(id);
      if (row.kind !== 'companies') {
        throw new AppError('validation_failed', 'a saved search has no companies to add; change its search');
      }
      await this.insertCodes(q, accountId, id, row.country, codes);
    });
    return this.one(accountId, id);
  }

  /** Removes companies from a list; returns how many were on it. */
  async removeCompanies(accountId: string, id: string, codes: readonly string[]): Promise<number> {
    return this.store.tx(async (q) => {
      const row = await q.get<Row>(`${SELECT} WHERE w.id = ? AND w.account_id = ?`, [id, accountId]);
      if (!row) throw notFound(id);
      let removed = 0;
      for (const code of codes) {
        removed += (
          await q.run('DELETE FROM watchlist_companies WHERE watchlist_id = ? AND registrikood = ?', [
            id,
            code,
          ])
        ).changes;
      }
      return removed;
    });
  }

  async remove(accountId: string, id: string): Promise<void> {
    await this.store.tx(async (q) => {
      const row = await q.get<{ id: string }>('SELECT id FROM watchlists WHERE id = ? AND account_id = ?', [
        id,
        accountId,
      ]);
      if (!row) throw notFound(id);
      await q.run('DELETE FROM watchlist_companies WHERE watchlist_id = ?', [id]);
      await q.run('DELETE FROM watchlists WHERE id = ?', [id]);
    });
  }

  /**
   * Marks events as charged to the account; returns how many were not yet (the ones to charge now). An
   * event costs once however often it is pulled or delivered; a mark whose charge then fails is an event
   * given away, never one charged twice.
   */
  async claimCharges(accountId: string, eventIds: readonly string[]): Promise<number> {
    if (eventIds.length === 0) return 0;
    const now = this.clock();
    return this.store.tx((q) => claimEventCharges(q, accountId, eventIds, now));
  }

  /** Every watchlist of these countries, for the events of a publish (ingest/pipeline/events.ts). */
  async forPublish(countries: readonly CountryCode[]): Promise<PublishWatchlist[]> {
    if (countries.length === 0) return [];
    const rows = await this.store.all<Row>(
      `SELECT id, account_id, name, country, kind, search, created_at, 0 AS companies FROM watchlists
       WHERE country IN (${countries.map(() => '?').join(', ')}) ORDER BY id`,
      countries,
    );
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      country: r.country,
      kind: r.kind,
      search: r.search === null ? null : (JSON.parse(r.search) as Record<string, unknown>),
    }));
  }

  /** The companies of the lists of one country, in pages (a publish may read a million of them). */
  async *members(
    country: CountryCode,
    pageSize = 50_000,
  ): AsyncGenerator<{ watchlistId: string; registrikood: string }[]> {
    let after = { id: '', code: '' };
    for (;;) {
      const rows = await this.store.all<{ watchlist_id: string; registrikood: string }>(
        `SELECT c.watchlist_id, c.registrikood FROM watchlist_companies c JOIN watchlists w ON w.id = c.watchlist_id
         WHERE w.country = ? AND (c.watchlist_id > ? OR (c.watchlist_id = ? AND c.registrikood > ?))
         ORDER BY c.watchlist_id, c.registrikood LIMIT ?`,
        [country, after.id, after.id, after.code, pageSize],
      );
      if (rows.length === 0) return;
      yield rows.map((r) => ({ watchlistId: r.watchlist_id, registrikood: r.registrikood }));
      const last = rows.at(-1)!;
      after = { id: last.watchlist_id, code: last.registrikood };
    }
  }

  private async insertCodes(
    q: Queryable,
    accountId: string,
    id: string,
    country: CountryCode,
    codes: readonly string[],
  ): Promise<void> {
    for (const code of new Set(codes)) {
      await q.run(
        'INSERT INTO watchlist_companies (watchlist_id, registrikood) VALUES (?, ?) ON CONFLICT DO NOTHING',
        [id, code],
      );
    }
    const n = await q.get<{ n: number }>(
      'SELECT count(*) AS n FROM watchlist_companies WHERE watchlist_id = ?',
      [id],
    );
    const cap = await this.listCap(q, accountId, country);
    if (Number(n?.n ?? 0) > cap) {
      throw validationError([
        {
          loc: ['body', 'companies'],
          param: 'companies',
          msg: `a watchlist holds at most ${cap} companies on this account's plan; it would hold ${Number(n?.n)}`,
          type: 'too_many_companies',
        },
      ]);
    }
  }

  private async listCap(q: Queryable, accountId: string, country: CountryCode): Promise<number> {
    const account = await Accounts.get(q, accountId);
    if (account?.plan === 'unlimited') return LARGE_LIST;
    return (await Accounts.hasActiveSubscription(q, accountId, country, this.clock()))
      ? LARGE_LIST
      : SMALL_LIST;
  }
}

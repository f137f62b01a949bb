import crypto from 'node:crypto';
import type { CountryCode } from '../contract/countries.ts';
import type { Engine } from '../engine/engine.ts';
import { isAppError } from '../errors/app-error.ts';
import { enqueueMail } from '../identity/mail-queue.ts';
import { EVENT_SELECT, toEvent, type EventRow } from '../services/events.ts';
import type { Clock } from '../wallet/clock.ts';
import type { Queryable, WalletStore } from '../wallet/store.ts';
import type { Metering, Principal } from '../wallet/types.ts';
import { claimEventCharges } from '../watchlists/watchlists.ts';
import type { EndpointRow } from './endpoints.ts';
import { DEFAULT_SEND_LIMITS, sendWebhook, type SendLimits, type SendResult } from './send.ts';
import { vettedAddress, type UrlPolicy } from './url-policy.ts';

/**
 * Webhook delivery of watchlist events (issue 31). Each replica, on every snapshot it serves, queues the
 * snapshot's events for the endpoints of their accounts (one row per event and endpoint, inserted once
 * whichever replica gets there first), then claims due rows the way the mail queue does, so one replica
 * at a time holds a delivery and a replica killed mid-delivery leaves it to the next claim.
 *
 * Metering follows the wallet's rule per attempt: reserve one event at the country's row price (as the
 * account's own app key: a delivery carries no key, so the account's plan decides), settle on a 2xx, void
 * on anything else. The charge is once per account and event (event_charges), so a retry after a lost
 * answer, or an event the account also pulled, costs nothing.
 */

/** The wait before each attempt after a failure (Standard Webhooks' reference schedule, ~27.6 h in all). */
export const RETRY_SCHEDULE_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
] as const;
/** Attempts before a delivery fails for good: the first one and one per step of the schedule. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** An event that cannot be paid for is tried again this often, until it expires unbilled. */
export const WAIT_FOR_CREDITS_MS = 3_600_000;
/** Events are kept this long in snapshots; a delivery not made by then expires, unbilled. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

export interface DelivererDeps {
  store: WalletStore;
  engine: Engine;
  metering: Metering;
  /** The account's app key: what a delivery is metered as. */
  principalOf(accountId: string): Promise<Principal>;
  policy: UrlPolicy;
  clock: Clock;
  limits?: SendLimits;
  /** How long a claim holds a row before another replica may take it (default 60 s). */
  leaseMs?: number;
}

interface DeliveryRow {
  id: number;
  endpoint_id: string;
  account_id: string;
  event_id: string;
  country: CountryCode;
  payload: string;
  expires_at: number;
  attempts: number;
  claim: string;
}

export interface DeliveryInfo {
  id: number;
  event_id: string;
  country: CountryCode;
  state: string;
  attempts: number;
  next_at: string | null;
  last_status: number | null;
  last_error: string | null;
  charged: number;
  created_at: string;
}

class DeliveryFailed extends Error {
  constructor(readonly outcome: SendResult) {
    super(outcome.error ?? 'delivery failed');
  }
}

/** `20261127T030000Z`: the UTC stamp snapshot ids begin with, for "published after the endpoint was made". */
export const stampOf = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

export class Deliverer {
  private timer: NodeJS.Timeout | null = null;
  /** The snapshot whose events this replica queued last (every replica queues them; a row is made once). */
  private queuedFor: string | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private readonly limits: SendLimits;
  private readonly leaseMs: number;

  constructor(private readonly deps: DelivererDeps) {
    this.limits = deps.limits ?? DEFAULT_SEND_LIMITS;
    this.leaseMs = deps.leaseMs ?? 60_000;
  }

  /** Queues the live snapshot's events for the enabled endpoints made before their publish. */
  async enqueue(): Promise<number> {
    const { store, engine, clock } = this.deps;
    const endpoints = await store.all<EndpointRow>(
      'SELECT * FROM webhook_endpoints WHERE disabled_at IS NULL',
    );
    if (endpoints.length === 0) return 0;
    const byAccount = new Map<string, EndpointRow[]>();
    for (const e of endpoints) byAccount.set(e.account_id, [...(byAccount.get(e.account_id) ?? []), e]);
    const accounts = [...byAccount.keys()];
    const oldest = stampOf(Math.min(...endpoints.map((e) => Number(e.created_at))));
    return engine.use(async (snap) => {
      let queued = 0;
      for (const country of snap.countries) {
        const file = snap.country(country).events?.file;
        if (!file) continue;
        const rows = (await snap.query(
          'events',
          `${EVENT_SELECT}, account_id FROM read_parquet(?)
           WHERE snapshot_id >= ? AND account_id IN (${accounts.map(() => '?').join(', ')}) ORDER BY id`,
          [file, oldest, ...accounts],
        )) as unknown as (EventRow & { account_id: string })[];
        if (rows.length === 0) continue;
        const now = clock();
        queued += await store.tx(async (q) => {
          let n = 0;
          for (const r of rows) {
            for (const e of byAccount.get(r.account_id) ?? []) {
              if (r.snapshot_id < stampOf(Number(e.created_at))) continue;
              const payload = JSON.stringify({
                type: 'watchlist.event',
                timestamp: new Date(now).toISOString(),
                data: toEvent(r, country),
              });
              n += (
                await q.run(
                  `INSERT INTO webhook_deliveries
                     (endpoint_id, account_id, event_id, country, payload, created_at, expires_at, next_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
                  [e.id, r.account_id, r.id, country, payload, now, now + DELIVERY_RETENTION_MS, now],
                )
              ).changes;
            }
          }
          return n;
        });
      }
      return queued;
    });
  }

  /** Claims up to `limit` due deliveries and attempts each; returns how many were attempted. */
  async runOnce(limit = 20): Promise<number> {
    const claimed = await this.claim(limit);
    for (const d of claimed) await this.attempt(d);
    return claimed.length;
  }

  /** One round: the events of a snapshot this replica has not queued yet, then what is due. */
  async tick(): Promise<number> {
    const live = this.deps.engine.snapshot?.id ?? null;
    if (live !== null && live !== this.queuedFor) {
      await this.enqueue();
      this.queuedFor = live;
    }
    return this.runOnce();
  }

  /** Delivers in the background every `intervalMs` until stop(). */
  start(intervalMs: number, onError: (err: unknown) => void): void {
    const tick = () => {
      this.running = this.tick()
        .catch(onError)
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, intervalMs);
        });
    };
    this.timer = setTimeout(tick, intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private async claim(limit: number): Promise<DeliveryRow[]> {
    const { store, clock } = this.deps;
    const now = clock();
    const claim = crypto.randomUUID();
    const skipLocked = store.dialect === 'postgres' ? ' FOR UPDATE OF d SKIP LOCKED' : '';
    const rows = await store.tx((q) =>
      q.all<DeliveryRow>(
        `UPDATE webhook_deliveries SET state = 'sending', attempts = attempts + 1, next_at = ?, claim = ?
         WHERE id IN (SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
                      WHERE d.state IN ('pending', 'waiting', 'sending') AND d.next_at <= ?
                        AND e.disabled_at IS NULL
                      ORDER BY d.next_at, d.id LIMIT ?${skipLocked})
         RETURNING id, endpoint_id, account_id, event_id, country, payload, expires_at, attempts, claim`,
        [now + this.leaseMs, claim, now, limit],
      ),
    );
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  }

  private async attempt(d: DeliveryRow): Promise<void> {
    const { store, clock, metering } = this.deps;
    const now = clock();
    if (now >= Number(d.expires_at))
      return this.finish(d, 'expired', null, 'not delivered within 30 days', 0);
    const endpoint = await store.get<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ?', [
      d.endpoint_id,
    ]);
    if (!endpoint) return;
    const secrets = [endpoint.secret];
    if (endpoint.previous_secret && Number(endpoint.previous_until) > now)
      secrets.push(endpoint.previous_secret);
    try {
      const { result, meta } = await metering.runMetered(
        {
          principal: await this.deps.principalOf(d.account_id),
          channel: 'webhook',
          operation: 'events',
          country: d.country,
          reserveRows: 1,
          fingerprint: JSON.stringify(['webhook', d.id, d.attempts]),
        },
        async () => {
          const url = new URL(endpoint.url);
          const target = { url, ...(await vettedAddress(url, this.deps.policy)) };
          const result = await sendWebhook(
            target,
            // The wall clock, not the scheduling one: receivers check the timestamp against their own.
            { id: d.event_id, at: new Date(), body: d.payload, secrets },
            this.limits,
          );
          if (!result.ok) throw new DeliveryFailed(result);
          const fresh = await store.tx((q) => claimEventCharges(q, d.account_id, [d.event_id], clock()));
          return { result, chargeableRows: fresh, rowsReturned: 1 };
        },
      );
      const charged = Math.round(meta.credits_charged * 1e6);
      await this.finish(d, 'delivered', result.status, null, charged);
    } catch (err) {
      if (isAppError(err) && err.code === 'insufficient_credits') return this.wait(d);
      const outcome =
        err instanceof DeliveryFailed
          ? err.outcome
          : { ok: false, status: null, error: err instanceof Error ? err.message : String(err) };
      await this.failed(d, endpoint, outcome);
    }
  }

  /** Records the attempt and, unless it was the last one, when the next is due. */
  private async failed(d: DeliveryRow, endpoint: EndpointRow, outcome: SendResult): Promise<void> {
    const { store, clock } = this.deps;
    const now = clock();
    const last = d.attempts >= MAX_ATTEMPTS;
    await store.tx(async (q) => {
      const { changes } = await q.run(
        `UPDATE webhook_deliveries SET state = ?, claim = NULL, next_at = ?, last_status = ?, last_error = ?,
           done_at = ? WHERE id = ? AND claim = ?`,
        [
          last ? 'failed' : 'pending',
          last ? now : now + RETRY_SCHEDULE_MS[d.attempts - 1]!,
          outcome.status,
          outcome.error,
          last ? now : null,
          d.id,
          d.claim,
        ],
      );
      if (changes === 0) return;
      await logAttempt(q, d.id, now, outcome.status, outcome.error, 0);
      if (!last) return;
      // Failing for over a day: the endpoint is switched off and its account told.
      const off = await q.run(
        `UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL`,
        [
          now,
          `every attempt to deliver ${d.event_id} failed (last: ${outcome.error ?? outcome.status})`,
          d.endpoint_id,
        ],
      );
      if (off.changes === 1) {
        await mailAccount(
          q,
          d.account_id,
          now,
          'webhook_disabled',
          'Your webhook endpoint was switched off',
          `Every attempt over the last day to deliver watchlist event ${d.event_id} to ${endpoint.url} ` +
            `failed (last answer: ${outcome.error ?? outcome.status}). The endpoint no longer receives events. ` +
            'Switch it back on in the dashboard (Webhooks) once it answers; failed deliveries can be replayed ' +
            'there, and every event can also be pulled from GET /api/v1/data/events.',
        );
      }
    });
  }

  /** The balance cannot cover the event: it waits, unsent and uncharged, and the account is told once. */
  private async wait(d: DeliveryRow): Promise<void> {
    const { store, clock } = this.deps;
    const now = clock();
    await store.tx(async (q) => {
      // Told once: not again while any of its deliveries (this one included) is already waiting.
      const already = await q.get<{ n: number }>(
        `SELECT count(*) AS n FROM webhook_deliveries WHERE account_id = ? AND last_error = ?
           AND state IN ('pending', 'sending', 'waiting')`,
        [d.account_id, WAITING],
      );
      const { changes } = await q.run(
        `UPDATE webhook_deliveries SET state = 'waiting', claim = NULL, attempts = attempts - 1, next_at = ?,
           last_error = ? WHERE id = ? AND claim = ?`,
        [now + WAIT_FOR_CREDITS_MS, WAITING, d.id, d.claim],
      );
      if (changes === 1 && Number(already?.n ?? 0) === 0) {
        await mailAccount(
          q,
          d.account_id,
          now,
          'events_waiting',
          'Watchlist events are waiting for credits',
          'Your balance cannot cover the next watchlist event, so events are held, unsent and unbilled. ' +
            'They go out after a top-up; an event held for 30 days expires unbilled.',
        );
      }
    });
  }

  private async finish(
    d: DeliveryRow,
    state: 'delivered' | 'expired',
    status: number | null,
    error: string | null,
    chargedMicro: number,
  ): Promise<void> {
    const { store, clock } = this.deps;
    const now = clock();
    await store.tx(async (q) => {
      const { changes } = await q.run(
        `UPDATE webhook_deliveries SET state = ?, claim = NULL, last_status = ?, last_error = ?, done_at = ?,
           charged_micro = charged_micro + ? WHERE id = ? AND claim = ?`,
        [state, status, error, now, chargedMicro, d.id, d.claim],
      );
      if (changes === 1 && state === 'delivered') await logAttempt(q, d.id, now, status, null, chargedMicro);
    });
  }

  /** The delivery log of an endpoint, newest first. */
  async log(accountId: string, endpointId: string, limit = 100): Promise<DeliveryInfo[]> {
    const rows = await this.deps.store.all<{
      id: number;
      event_id: string;
      country: CountryCode;
      state: string;
      attempts: number;
      next_at: number;
      last_status: number | null;
      last_error: string | null;
      charged_micro: number;
      created_at: number;
    }>(
      `SELECT id, event_id, country, state, attempts, next_at, last_status, last_error, charged_micro, created_at
       FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ? ORDER BY id DESC LIMIT ?`,
      [accountId, endpointId, limit],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      event_id: r.event_id,
      country: r.country,
      state: r.state,
      attempts: Number(r.attempts),
      next_at: ['pending', 'waiting'].includes(r.state) ? new Date(Number(r.next_at)).toISOString() : null,
      last_status: r.last_status === null ? null : Number(r.last_status),
      last_error: r.last_error,
      charged: Number(r.charged_micro) / 1e6,
      created_at: new Date(Number(r.created_at)).toISOString(),
    }));
  }

  /** Sends a delivery again at once (a delivered one is free again: the event was charged already). */
  async replay(accountId: string, endpointId: string, deliveryId: number): Promise<boolean> {
    const { store, clock } = this.deps;
    const now = clock();
    const { changes } = await store.tx((q) =>
      q.run(
        `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_at = ?, done_at = NULL,
           expires_at = CASE WHEN expires_at < ? THEN ? ELSE expires_at END
         WHERE id = ? AND account_id = ? AND endpoint_id = ? AND state <> 'sending'`,
        [now, now + DAY_MS, now + DAY_MS, deliveryId, accountId, endpointId],
      ),
    );
    return changes === 1;
  }
}

const DAY_MS = 86_400_000;
const WAITING = 'waiting for credits';

async function logAttempt(
  q: Queryable,
  deliveryId: number,
  at: number,
  status: number | null,
  error: string | null,
  chargedMicro: number,
): Promise<void> {
  await q.run(
    'INSERT INTO webhook_attempts (delivery_id, at, status, error, charged_micro) VALUES (?, ?, ?, ?, ?)',
    [deliveryId, at, status, error, chargedMicro],
  );
}

async function mailAccount(
  q: Queryable,
  accountId: string,
  now: number,
  kind: 'webhook_disabled' | 'events_waiting',
  subject: string,
  text: string,
): Promise<void> {
  const account = await q.get<{ email: string }>('SELECT email FROM accounts WHERE id = ?', [accountId]);
  if (account) await enqueueMail(q, { kind, to: account.email, subject, text }, now);
}

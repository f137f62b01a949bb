import crypto from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Clock } from '../wallet/clock.ts';
import type { WalletStore } from '../wallet/store.ts';
import { parseEndpointUrl, vettedAddress, type UrlPolicy } from './url-policy.ts';

/**
 * An account's webhook endpoints (issue 31): where its watchlist events are pushed, each with its own
 * signing secret in the Standard Webhooks format (`whsec_` + base64 of 32 random bytes). The secret is
 * shown once, when it is made; after a rotation the previous one also signs for ROTATION_OVERLAP_MS, so a
 * receiver can switch without losing a delivery.
 */

export const MAX_ENDPOINTS = 5;
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface Endpoint {
  id: string;
  url: string;
  created_at: string;
  /** Null while it receives events; the time it was switched off after failing, or by its account. */
  disabled_at: string | null;
  disabled_reason: string | null;
}

export interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_until: number | null;
  created_at: number;
  disabled_at: number | null;
  disabled_reason: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export const toEndpoint = (r: EndpointRow): Endpoint => ({
  id: r.id,
  url: r.url,
  created_at: iso(Number(r.created_at))!,
  disabled_at: iso(r.disabled_at === null ? null : Number(r.disabled_at)),
  disabled_reason: r.disabled_reason,
});

const newSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;
const notFound = (id: string) => new AppError('not_found', `no webhook endpoint ${id} in this account`);

export class Endpoints {
  constructor(
    private readonly store: WalletStore,
    private readonly clock: Clock,
    private readonly policy: UrlPolicy,
  ) {}

  async list(accountId: string): Promise<Endpoint[]> {
    const rows = await this.store.all<EndpointRow>(
      'SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at, id',
      [accountId],
    );
    return rows.map(toEndpoint);
  }

  async row(accountId: string, id: string): Promise<EndpointRow> {
    const row = await this.store.get<EndpointRow>(
      'SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ?',
      [id, accountId],
    );
    if (!row) throw notFound(id);
    return row;
  }

  /** A new endpoint and its secret, which is never shown again. */
  async create(accountId: string, rawUrl: string): Promise<Endpoint & { secret: string }> {
    const url = parseEndpointUrl(rawUrl, this.policy);
    await vettedAddress(url, this.policy);
    const id = `we_${crypto.randomBytes(12).toString('base64url')}`;
    const secret = newSecret();
    await this.store.tx(async (q) => {
      if (q.dialect === 'postgres')
        await q.get('SELECT id FROM accounts WHERE id = ? FOR UPDATE', [accountId]);
      const n = await q.get<{ n: number }>(
        'SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = ?',
        [accountId],
      );
      if (Number(n?.n ?? 0) >= MAX_ENDPOINTS) {
        throw new AppError('validation_failed', `at most ${MAX_ENDPOINTS} endpoints`, [
          {
            loc: ['body'],
            param: 'body',
            msg: `an account has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first`,
            type: 'too_many_endpoints',
          },
        ]);
      }
      await q.run(
        'INSERT INTO webhook_endpoints (id, account_id, url, secret, created_at) VALUES (?, ?, ?, ?, ?)',
        [id, accountId, url.toString(), secret, this.clock()],
      );
    });
    return { ...toEndpoint(await this.row(accountId, id)), secret };
  }

  /** A new secret; the old one keeps signing beside it for a day. */
  async rotate(accountId: string, id: string): Promise<Endpoint & { secret: string }> {
    const row = await this.row(accountId, id);
    const secret = newSecret();
    await this.store.tx((q) =>
      q.run('UPDATE webhook_endpoints SET secret = ?, previous_secret = ?, previous_until = ? WHERE id = ?', [
        secret,
        row.secret,
        this.clock() + ROTATION_OVERLAP_MS,
        id,
      ]),
    );
    return { ...toEndpoint(await this.row(accountId, id)), secret };
  }

  /** Switched back on after failing: its failed deliveries are not resent (replay them one by one). */
  async enable(accountId: string, id: string): Promise<Endpoint> {
    await this.row(accountId, id);
    await this.store.tx((q) =>
      q.run('UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL WHERE id = ?', [id]),
    );
    return toEndpoint(await this.row(accountId, id));
  }

  async remove(accountId: string, id: string): Promise<void> {
    await this.row(accountId, id);
    await this.store.tx(async (q) => {
      // Holds of deliveries in flight are the sweeper's: their rows go, the wallet's holds time out.
      await q.run(
        'DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = ?)',
        [id],
      );
      await q.run('DELETE FROM webhook_deliveries WHERE endpoint_id = ?', [id]);
      await q.run('DELETE FROM webhook_endpoints WHERE id = ?', [id]);
    });
  }
}

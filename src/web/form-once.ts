import crypto from 'node:crypto';
import type { WalletStore } from '../wallet/store.ts';

/**
 * Single-use tokens for forms that place orders. The confirmation page carries a fresh token; the POST that
 * places the order must spend it, so a second POST of the same form (a double submit, a resend after a
 * slow answer, the browser's back-and-resubmit) finds it spent and orders nothing. The page script's
 * disabled button is a courtesy; this is the guarantee.
 *
 * Tokens live in the wallet's database (table form_tokens), so a form rendered by one replica can be
 * posted to another. Spending is one conditional UPDATE: of two POSTs racing on any replicas, the database
 * lets exactly one change the row. Only the SHA-256 of a token is stored, like sessions. Rows are bounded
 * by time: expired ones are deleted whenever a token is issued.
 */

export type SpendResult =
  | { state: 'spent' }
  /** Spent before: what that first POST did (null while it is still running), to show the same answer. */
  | { state: 'used'; outcome: string | null }
  | { state: 'unknown' };

export const FORM_TOKEN_TTL_MS = 60 * 60 * 1000;

function hash(token: string): Buffer {
  return crypto.createHash('sha256').update(token, 'utf8').digest();
}

export class FormOnce {
  constructor(
    private readonly store: WalletStore,
    private readonly clock: () => number = Date.now,
  ) {}

  async issue(accountId: string): Promise<string> {
    const now = this.clock();
    const token = crypto.randomBytes(18).toString('base64url');
    await this.store.tx(async (q) => {
      await q.run('DELETE FROM form_tokens WHERE expires_at <= ?', [now]);
      await q.run(
        'INSERT INTO form_tokens (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
        [hash(token), accountId, now, now + FORM_TOKEN_TTL_MS],
      );
    });
    return token;
  }

  /** Spends the token for this account; only the first call for a token answers 'spent'. */
  async spend(token: string, accountId: string): Promise<SpendResult> {
    const now = this.clock();
    const h = hash(token);
    const spent = await this.store.run(
      `UPDATE form_tokens SET used_at = ?
       WHERE token_hash = ? AND account_id = ? AND expires_at > ? AND used_at IS NULL`,
      [now, h, accountId, now],
    );
    if (spent.changes === 1) return { state: 'spent' };
    const row = await this.store.get<{ used_at: number | null; outcome: string | null }>(
      'SELECT used_at, outcome FROM form_tokens WHERE token_hash = ? AND account_id = ? AND expires_at > ?',
      [h, accountId, now],
    );
    return row && row.used_at !== null ? { state: 'used', outcome: row.outcome } : { state: 'unknown' };
  }

  /** What the spending POST did, so a repeated POST can show the same answer. */
  async record(token: string, outcome: string): Promise<void> {
    await this.store.run('UPDATE form_tokens SET outcome = ? WHERE token_hash = ?', [outcome, hash(token)]);
  }
}

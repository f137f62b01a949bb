import crypto from 'node:crypto';

/**
 * Single-use tokens for forms that place orders. The confirmation page carries a fresh token; the POST that
 * places the order must spend it, so a second POST of the same form (a double submit, a resend after a
 * slow answer, the browser's back-and-resubmit) finds it spent and orders nothing. The page script's
 * disabled button is a courtesy; this is the guarantee.
 *
 * Tokens live in this process's memory: a token is spent synchronously, before anything is awaited, so two
 * POSTs racing in one process cannot both spend it. A restart forgets every token, which fails safe (the
 * confirmation is refused and the customer asks again). Memory is bounded: tokens expire, expired ones are
 * dropped whenever one is issued, and past MAX_LIVE the oldest go first.
 */

export type SpendResult =
  | { state: 'spent' }
  /** Spent before: what that first POST did (null while it is still running), to show the same answer. */
  | { state: 'used'; outcome: string | null }
  | { state: 'unknown' };

interface Entry {
  accountId: string;
  expiresAt: number;
  used: boolean;
  outcome: string | null;
}

const TTL_MS = 60 * 60 * 1000;
const MAX_LIVE = 10_000;

export class FormOnce {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: () => number = Date.now) {}

  issue(accountId: string): string {
    const now = this.clock();
    // Map order is insertion order, so the oldest entries come first.
    for (const [token, e] of this.entries) {
      if (e.expiresAt > now && this.entries.size < MAX_LIVE) break;
      this.entries.delete(token);
    }
    const token = crypto.randomBytes(18).toString('base64url');
    this.entries.set(token, { accountId, expiresAt: now + TTL_MS, used: false, outcome: null });
    return token;
  }

  /** Spends the token for this account; only the first call for a token answers 'spent'. */
  spend(token: string, accountId: string): SpendResult {
    const e = this.entries.get(token);
    if (!e || e.accountId !== accountId || e.expiresAt <= this.clock()) return { state: 'unknown' };
    if (e.used) return { state: 'used', outcome: e.outcome };
    e.used = true;
    return { state: 'spent' };
  }

  /** What the spending POST did, so a repeated POST can show the same answer. */
  record(token: string, outcome: string): void {
    const e = this.entries.get(token);
    if (e) e.outcome = outcome;
  }

  get size(): number {
    return this.entries.size;
  }
}

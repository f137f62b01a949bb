import crypto from 'node:crypto';
import type { Queryable, SqlParam, WalletStore } from '../wallet/store.ts';
import type { Mail } from './mailer.ts';

/**
 * The outgoing-mail queue: table mail_queue in the wallet's database (SQLite migration 4, PostgreSQL 5).
 * A message is queued inside the transaction that issues its link, so a link exists exactly when its
 * mail is on its way, and a request never waits for (or fails with) the mailer. Workers of any process
 * claim due messages with one atomic UPDATE … RETURNING (on PostgreSQL over rows selected FOR UPDATE SKIP
 * LOCKED, so replicas never take the same message); a claim is a lease, and a message whose worker died
 * mid-send is taken again when the lease ends.
 */

export type MailKind = 'verify' | 'account_exists' | 'reset' | 'webhook_disabled' | 'events_waiting';

export interface QueueMail extends Mail {
  /** Which template: logged instead of the content, which holds a live link. */
  kind: MailKind;
}

/** A claimed message: the worker holding `claim` sends it and settles it. */
export interface ClaimedMail extends QueueMail {
  id: number;
  /** The Message-ID's local part, the same for every attempt. */
  messageId: string;
  createdAt: number;
  /** Attempts so far, this one included. */
  attempts: number;
  claim: string;
}

export interface MailQueueCounts {
  queued: number;
  sending: number;
  failed: number;
}

/**
 * A condition the queue row is written under (`EXISTS (sql)`): the message is queued only when it holds,
 * by one statement that runs the same whatever the answer (identity.ts, password reset).
 */
export interface QueueCondition {
  sql: string;
  params: readonly SqlParam[];
}

const COLUMNS = 'kind, recipient, subject, body, message_id, created_at, next_at';

/** Inside the caller's transaction: queues one message, due at once. Returns whether a row was written. */
export async function enqueueMail(
  q: Queryable,
  mail: QueueMail,
  now: number,
  onlyIf?: QueueCondition,
): Promise<boolean> {
  const values: SqlParam[] = [mail.kind, mail.to, mail.subject, mail.text, crypto.randomUUID(), now, now];
  const { changes } = onlyIf
    ? await q.run(
        `INSERT INTO mail_queue (${COLUMNS}) SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (${onlyIf.sql})`,
        [...values, ...onlyIf.params],
      )
    : await q.run(`INSERT INTO mail_queue (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`, values);
  return changes === 1;
}

interface ClaimedRow {
  id: number;
  kind: MailKind;
  recipient: string;
  subject: string;
  body: string;
  message_id: string;
  created_at: number;
  attempts: number;
}

export class MailQueue {
  constructor(private readonly store: WalletStore) {}

  /**
   * Takes up to `limit` due messages (queued ones whose next attempt has come, and sending ones whose lease
   * ended) for `leaseMs`, counting the attempt. One statement: on SQLite the write lock serialises
   * claimers; on PostgreSQL rows another replica is claiming are skipped, and a row claimed and committed
   * meanwhile fails the re-checked `next_at` condition, so two workers never hold one message.
   */
  async claim(now: number, leaseMs: number, limit: number): Promise<ClaimedMail[]> {
    const claim = crypto.randomUUID();
    const skipLocked = this.store.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const rows = await this.store.tx((q) =>
      q.all<ClaimedRow>(
        `UPDATE mail_queue SET state = 'sending', attempts = attempts + 1, next_at = ?, claim = ?
         WHERE id IN (SELECT id FROM mail_queue WHERE state <> 'failed' AND next_at <= ?
                      ORDER BY next_at, id LIMIT ?${skipLocked})
         RETURNING id, kind, recipient, subject, body, message_id, created_at, attempts`,
        [now + leaseMs, claim, now, limit],
      ),
    );
    return rows
      .sort((a, b) => a.id - b.id)
      .map((r) => ({
        id: r.id,
        kind: r.kind,
        to: r.recipient,
        subject: r.subject,
        text: r.body,
        messageId: r.message_id,
        createdAt: r.created_at,
        attempts: r.attempts,
        claim,
      }));
  }

  /** Sent: the row goes, and the link in its body with it. False when the lease was lost meanwhile. */
  async sent(mail: ClaimedMail): Promise<boolean> {
    const { changes } = await this.store.tx((q) =>
      q.run('DELETE FROM mail_queue WHERE id = ? AND claim = ?', [mail.id, mail.claim]),
    );
    return changes === 1;
  }

  /** Failed this time: queued again for `nextAt`. */
  async retry(mail: ClaimedMail, nextAt: number, error: string): Promise<boolean> {
    const { changes } = await this.store.tx((q) =>
      q.run(
        `UPDATE mail_queue SET state = 'queued', claim = NULL, next_at = ?, last_error = ?
         WHERE id = ? AND claim = ?`,
        [nextAt, error, mail.id, mail.claim],
      ),
    );
    return changes === 1;
  }

  /** Not attempted after all (the worker is stopping): due again at once, the attempt uncounted. */
  async release(mail: ClaimedMail, now: number): Promise<boolean> {
    const { changes } = await this.store.tx((q) =>
      q.run(
        `UPDATE mail_queue SET state = 'queued', claim = NULL, next_at = ?, attempts = attempts - 1
         WHERE id = ? AND claim = ?`,
        [now, mail.id, mail.claim],
      ),
    );
    return changes === 1;
  }

  /** Given up: kept (without its body) for the operator, until pruned. */
  async giveUp(mail: ClaimedMail, now: number, error: string): Promise<boolean> {
    const { changes } = await this.store.tx((q) =>
      q.run(
        `UPDATE mail_queue SET state = 'failed', claim = NULL, body = '', failed_at = ?, last_error = ?
         WHERE id = ? AND claim = ?`,
        [now, error, mail.id, mail.claim],
      ),
    );
    return changes === 1;
  }

  /** Drops failed messages given up before `before`. */
  async prune(before: number): Promise<number> {
    const { changes } = await this.store.tx((q) =>
      q.run(`DELETE FROM mail_queue WHERE state = 'failed' AND failed_at < ?`, [before]),
    );
    return changes;
  }

  async counts(): Promise<MailQueueCounts> {
    const rows = await this.store.all<{ state: keyof MailQueueCounts; n: number }>(
      'SELECT state, count(*) AS n FROM mail_queue GROUP BY state',
    );
    const counts: MailQueueCounts = { queued: 0, sending: 0, failed: 0 };
    for (const r of rows) counts[r.state] = Number(r.n);
    return counts;
  }
}

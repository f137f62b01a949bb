import crypto from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import { normaliseEmail } from '../wallet/accounts.ts';
import type { Queryable, WalletStore } from '../wallet/store.ts';
import { openSqliteStore } from '../wallet/store-sqlite.ts';
import { RateLimitedError } from '../wallet/errors.ts';
import { enqueueMail } from './mail-queue.ts';
import { accountExistsMail, resetMail, verifyMail } from './mail-templates.ts';
import {
  DUMMY_HASH_PROMISE,
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from './passwords.ts';

/**
 * People who sign in to the dashboard, their sessions and their e-mailed single-use links. The tables live
 * in the wallet's database (migration 2) beside the accounts a verified user is linked to, whichever backend
 * that is: identity never touches the ledger, and the wallet never sees a password.
 */

export interface IdentityOptions {
  /** The wallet's store (shared, closed by its owner); or `dbPath` to open the SQLite file itself. */
  store?: WalletStore;
  dbPath?: string;
  now?: () => Date;
  sessionTtlMs?: number;
  lockout?: Partial<LockoutOptions>;
  mailLimits?: Partial<MailLimits>;
  /** Base of the links in mail queued without one (tools and tests); the pages always pass theirs. */
  linkBase?: string;
}

/**
 * Sign-in failures bring progressive delays, never a lock: after `free` failures inside the window, the
 * next attempt for that e-mail (or from that client) must wait `baseDelayMs` after the last failure, and
 * each further failure doubles the wait up to the cap. The right password works again once the wait is
 * over, while guessing slows to one try per cap.
 */
export interface LockoutOptions {
  /** Failed sign-ins for one e-mail inside the window that cost no wait. */
  perEmail: number;
  /** Failed sign-ins from one client address inside the window that cost no wait. */
  perAddress: number;
  baseDelayMs: number;
  maxDelayMsPerEmail: number;
  maxDelayMsPerAddress: number;
  /** Failures older than this are forgotten. */
  windowMs: number;
}

export const DEFAULT_LOCKOUT: LockoutOptions = {
  perEmail: 4,
  perAddress: 20,
  baseDelayMs: 1_000,
  maxDelayMsPerEmail: 5 * 60_000,
  maxDelayMsPerAddress: 15 * 60_000,
  windowMs: 15 * 60_000,
};

/** Mail-sending requests (sign-up, its verification mail, password reset) per e-mail and per client. */
export interface MailLimits {
  perEmail: number;
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_MAIL_LIMITS: MailLimits = { perEmail: 3, perAddress: 10, windowMs: 60 * 60_000 };
export const SESSION_TTL_MS = 7 * 86_400_000;
const TOKEN_TTL_MS = { verify: 2 * 86_400_000, reset: 60 * 60_000 } as const;
type TokenPurpose = keyof typeof TOKEN_TTL_MS;

export interface Session {
  userId: string;
  email: string;
  /** Null until the e-mail is verified (registration completed). */
  accountId: string | null;
  csrfToken: string;
  expiresAt: number;
}

interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  account_id: string | null;
  verified_at: number | null;
}

function newToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

function tokenHash(token: string): Buffer {
  return crypto.createHash('sha256').update(token, 'utf8').digest();
}

function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new AppError(
      'validation_failed',
      `a password is ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`,
    );
  }
}

const SQL = {
  userByEmail: 'SELECT * FROM users WHERE email = ?',
  userById: 'SELECT * FROM users WHERE id = ?',
  insertUserIfNew:
    'INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (email) DO NOTHING',
  setPassword: 'UPDATE users SET password_hash = ? WHERE id = ?',
  markVerified: 'UPDATE users SET verified_at = coalesce(verified_at, ?) WHERE id = ?',
  setAccount: 'UPDATE users SET account_id = ? WHERE id = ? AND account_id IS NULL',
  // A link is written only for the user it may go to: verification for an unverified user, reset for a
  // verified one. The condition is in the statement, so the same statements run whoever asks (below).
  insertVerifyToken: `INSERT INTO email_tokens (token_hash, user_id, purpose, created_at, expires_at)
    SELECT ?, id, 'verify', ?, ? FROM users WHERE id = ? AND verified_at IS NULL`,
  insertResetToken: `INSERT INTO email_tokens (token_hash, user_id, purpose, created_at, expires_at)
    SELECT ?, id, 'reset', ?, ? FROM users WHERE email = ? AND verified_at IS NOT NULL`,
  verifiedUser: 'SELECT 1 FROM users WHERE email = ? AND verified_at IS NOT NULL',
  tokenByHash: 'SELECT user_id, expires_at, used_at FROM email_tokens WHERE token_hash = ? AND purpose = ?',
  useTokens: 'UPDATE email_tokens SET used_at = ? WHERE user_id = ? AND purpose = ? AND used_at IS NULL',
  deleteLiveVerifyTokens: `DELETE FROM email_tokens WHERE user_id = ? AND purpose = 'verify' AND used_at IS NULL`,
  deleteLiveResetTokens: `DELETE FROM email_tokens WHERE purpose = 'reset' AND used_at IS NULL
    AND user_id IN (SELECT id FROM users WHERE email = ?)`,
  deleteExpiredTokens: 'DELETE FROM email_tokens WHERE expires_at <= ?',
  insertSession:
    'INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
  sessionByHash: `SELECT s.user_id, s.csrf_token, s.expires_at, u.email, u.account_id
    FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND s.expires_at > ?`,
  deleteSession: 'DELETE FROM sessions WHERE token_hash = ?',
  deleteUserSessions: 'DELETE FROM sessions WHERE user_id = ?',
  deleteExpiredSessions: 'DELETE FROM sessions WHERE expires_at <= ?',
  failures: 'SELECT count(*) AS n, max(at) AS last FROM sign_in_failures WHERE subject = ? AND at > ?',
  insertFailure: 'INSERT INTO sign_in_failures (subject, at) VALUES (?, ?) RETURNING rowid',
  clearFailures: 'DELETE FROM sign_in_failures WHERE subject = ?',
  deleteFailure: 'DELETE FROM sign_in_failures WHERE rowid = ?',
  touchFailure: 'UPDATE sign_in_failures SET at = ? WHERE rowid = ?',
  pruneFailures: 'DELETE FROM sign_in_failures WHERE at <= ?',
  pruneMailSends: 'DELETE FROM mail_sends WHERE at <= ?',
  nthMailSend: 'SELECT at FROM mail_sends WHERE subject = ? AND at > ? ORDER BY at DESC LIMIT 1 OFFSET ?',
  insertMailSend: 'INSERT INTO mail_sends (subject, at) VALUES (?, ?)',
} as const;

export class Identity {
  private readonly store: WalletStore;
  private readonly ownStore: boolean;
  private readonly clock: () => number;
  private readonly sessionTtlMs: number;
  private readonly lockout: LockoutOptions;
  private readonly mailLimits: MailLimits;
  private readonly linkBase: string;

  constructor(opts: IdentityOptions) {
    if (opts.store) {
      this.store = opts.store;
      this.ownStore = false;
    } else if (opts.dbPath !== undefined) {
      this.store = openSqliteStore(opts.dbPath);
      this.ownStore = true;
    } else {
      throw new AppError('internal', 'Identity needs the wallet store or a dbPath');
    }
    this.clock = opts.now ? () => (opts.now as () => Date)().getTime() : Date.now;
    this.sessionTtlMs = opts.sessionTtlMs ?? SESSION_TTL_MS;
    this.lockout = { ...DEFAULT_LOCKOUT, ...opts.lockout };
    this.mailLimits = { ...DEFAULT_MAIL_LIMITS, ...opts.mailLimits };
    this.linkBase = opts.linkBase ?? 'http://localhost';
  }

  /**
   * A new user with an unverified e-mail, and its verification mail queued in the same transaction. For an
   * e-mail already signed up the answer has `existing: true` (the caller tells that person by e-mail, never
   * on the page, so the form cannot be used to find out who has an account): an unverified one gets a fresh
   * link, a verified one a mail saying it already has an account. The three cases run the same statements,
   * each writing a queue row, so neither the page nor its timing tells them apart.
   */
  async signUp(
    emailInput: string,
    password: string,
    address: string,
    linkBase = this.linkBase,
  ): Promise<{ userId: string; email: string; verifyToken: string | null; existing: boolean }> {
    const email = normaliseEmail(emailInput);
    checkPassword(password);
    // Every accepted sign-up sends a mail (a link, or "you already have an account"): throttled alike.
    await this.takeMailAllowance(email, address);
    const hash = await hashPassword(password);
    const newId = `usr_${crypto.randomBytes(8).toString('hex')}`;
    const token = newToken();
    return this.store.tx(async (q) => {
      const now = this.clock();
      const created = (await q.run(SQL.insertUserIfNew, [newId, email, hash, now])).changes === 1;
      const user = await q.get<UserRow>(SQL.userByEmail, [email]);
      if (!user) throw new AppError('internal', 'the user row vanished inside its transaction');
      await q.run(SQL.deleteExpiredTokens, [now]);
      await q.run(SQL.deleteLiveVerifyTokens, [user.id]);
      const expires = now + TOKEN_TTL_MS.verify;
      const issued =
        (await q.run(SQL.insertVerifyToken, [tokenHash(token), now, expires, user.id])).changes === 1;
      await enqueueMail(
        q,
        issued ? verifyMail(email, linkBase, token) : accountExistsMail(email, linkBase),
        now,
      );
      return { userId: user.id, email, verifyToken: issued ? token : null, existing: !created };
    });
  }

  /** Consumes a verification link: the user is verified (the caller then completes the registration). */
  verifyEmail(token: string): Promise<{ userId: string; email: string; accountId: string | null }> {
    return this.store.tx(async (q) => {
      const user = await this.consumeToken(q, token, 'verify');
      await q.run(SQL.markVerified, [this.clock(), user.id]);
      return { userId: user.id, email: user.email, accountId: user.account_id };
    });
  }

  /** Links a verified user to their wallet account, once. */
  async linkAccount(userId: string, accountId: string): Promise<void> {
    await this.store.tx((q) => q.run(SQL.setAccount, [accountId, userId]));
  }

  async user(
    userId: string,
  ): Promise<{ userId: string; email: string; verified: boolean; accountId: string | null } | null> {
    const u = await this.store.get<UserRow>(SQL.userById, [userId]);
    return u
      ? { userId: u.id, email: u.email, verified: u.verified_at !== null, accountId: u.account_id }
      : null;
  }

  /**
   * Checks the lockout, then the password, and opens a brand-new session (a token the client never chose,
   * so a planted cookie cannot become a signed-in session). A wrong password, an unknown e-mail and an
   * unverified one cost the same scrypt work; only after the right password is "not verified yet" said.
   */
  async signIn(
    emailInput: string,
    password: string,
    address: string,
  ): Promise<{ token: string; session: Session }> {
    let email: string;
    try {
      email = normaliseEmail(emailInput);
    } catch {
      throw new AppError('unauthorized', 'wrong e-mail or password');
    }
    const subjects = [`email:${email}`, `ip:${address}`];
    // The attempt counts as a failure from the start (undone on success). The lockout check and this
    // insert are one transaction (on PostgreSQL also under a lock per subject), so guesses sent in
    // parallel, to any replica, see each other and the delay applies to them as well, instead of all
    // passing the check before any failure is written.
    const attempt = await this.store.tx(async (q) => {
      if (q.dialect === 'postgres') {
        for (const subject of [...subjects].sort()) {
          await q.get('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`signin\n${subject}`]);
        }
      }
      await this.assertNotLocked(q, subjects);
      const now = this.clock();
      await q.run(SQL.pruneFailures, [now - this.lockout.windowMs]);
      const ids: number[] = [];
      for (const s of subjects) {
        const row = await q.get<{ rowid: number }>(SQL.insertFailure, [s, now]);
        if (row) ids.push(row.rowid);
      }
      return ids;
    });
    const user = await this.store.get<UserRow>(SQL.userByEmail, [email]);
    const ok = await verifyPassword(
      password.slice(0, PASSWORD_MAX_LENGTH),
      user?.password_hash ?? (await DUMMY_HASH_PROMISE),
    );
    if (!user || !ok) {
      // The wait runs from when the client learns of the failure, not from when it asked.
      await this.store.tx(async (q) => {
        const now = this.clock();
        for (const rowid of attempt) await q.run(SQL.touchFailure, [now, rowid]);
      });
      throw new AppError('unauthorized', 'wrong e-mail or password');
    }
    await this.store.tx(async (q) => {
      for (const rowid of attempt) await q.run(SQL.deleteFailure, [rowid]);
    });
    if (user.verified_at === null) {
      throw new AppError(
        'unauthorized',
        'this e-mail address is not verified yet: open the link we sent you',
      );
    }
    return this.store.tx(async (q) => {
      const now = this.clock();
      await q.run(SQL.clearFailures, [`email:${email}`]);
      await q.run(SQL.deleteExpiredSessions, [now]);
      return this.openSession(q, user, now);
    });
  }

  /** The live session of a cookie value, or null (unknown, expired or signed out). */
  async session(token: string | undefined): Promise<Session | null> {
    if (!token || token.length > 100) return null;
    const row = await this.store.get<{
      user_id: string;
      csrf_token: string;
      expires_at: number;
      email: string;
      account_id: string | null;
    }>(SQL.sessionByHash, [tokenHash(token), this.clock()]);
    if (!row) return null;
    return {
      userId: row.user_id,
      email: row.email,
      accountId: row.account_id,
      csrfToken: row.csrf_token,
      expiresAt: row.expires_at,
    };
  }

  async signOut(token: string | undefined): Promise<void> {
    if (!token) return;
    await this.store.tx((q) => q.run(SQL.deleteSession, [tokenHash(token)]));
  }

  /**
   * Queues a reset link for a verified user and returns its token, or null when no verified user has that
   * e-mail. The page says the same either way, and the work is the same either way: one transaction that
   * takes the mail allowance (so a 429 tells nothing about the address either) and runs the same
   * statements, whose conditions decide inside the database whether a link and its mail are written.
   */
  async requestPasswordReset(
    emailInput: string,
    address: string,
    linkBase = this.linkBase,
  ): Promise<{ email: string; token: string } | null> {
    let email: string;
    try {
      email = normaliseEmail(emailInput);
    } catch {
      return null;
    }
    const token = newToken();
    const mail = resetMail(email, linkBase, token);
    return this.store.tx(async (q) => {
      await this.mailAllowance(q, email, address);
      const now = this.clock();
      await q.run(SQL.deleteExpiredTokens, [now]);
      await q.run(SQL.deleteLiveResetTokens, [email]);
      const expires = now + TOKEN_TTL_MS.reset;
      const issued =
        (await q.run(SQL.insertResetToken, [tokenHash(token), now, expires, email])).changes === 1;
      await enqueueMail(q, mail, now, { sql: SQL.verifiedUser, params: [email] });
      return issued ? { email, token } : null;
    });
  }

  /**
   * RateLimitedError when this e-mail or this client has had its share of mail in the window. A sliding
   * window over the mail_sends rows, counted in one transaction (on PostgreSQL under a lock per subject,
   * always taken e-mail first), so requests on every replica share one allowance; a hit is counted against
   * both subjects only when both have room.
   */
  private async takeMailAllowance(email: string, address: string): Promise<void> {
    await this.store.tx((q) => this.mailAllowance(q, email, address));
  }

  /** Inside the caller's transaction: counts one mail request, or throws RateLimitedError (see above). */
  private async mailAllowance(q: Queryable, email: string, address: string): Promise<void> {
    const { perEmail, perAddress, windowMs } = this.mailLimits;
    const limits: [string, number][] = [
      [`email:${email}`, perEmail],
      [`ip:${address}`, perAddress],
    ];
    if (q.dialect === 'postgres') {
      for (const [subject] of limits) {
        await q.get('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`mail\n${subject}`]);
      }
    }
    const now = this.clock();
    await q.run(SQL.pruneMailSends, [now - windowMs]);
    let wait = 0;
    for (const [subject, limit] of limits) {
      // The limit-th newest hit in the window: once it leaves the window there is room again.
      const oldest = await q.get<{ at: number }>(SQL.nthMailSend, [
        subject,
        now - windowMs,
        Math.max(0, limit - 1),
      ]);
      if (oldest) wait = Math.max(wait, Math.max(1, Math.ceil((oldest.at + windowMs - now) / 1000)));
    }
    if (wait > 0) {
      throw new RateLimitedError(
        `too many e-mails requested; try again in ${Math.ceil(wait / 60)} minute(s)`,
        wait,
        null,
      );
    }
    for (const [subject] of limits) await q.run(SQL.insertMailSend, [subject, now]);
  }

  /** Sets the new password and ends every session of the user (whoever had the old one is signed out). */
  async resetPassword(token: string, password: string): Promise<{ email: string }> {
    checkPassword(password);
    const hash = await hashPassword(password);
    return this.store.tx(async (q) => {
      const user = await this.consumeToken(q, token, 'reset');
      await q.run(SQL.setPassword, [hash, user.id]);
      await q.run(SQL.deleteUserSessions, [user.id]);
      await q.run(SQL.clearFailures, [`email:${user.email}`]);
      return { email: user.email };
    });
  }

  /** Closes the store only if this object opened it (a shared wallet store is closed by the wallet's owner). */
  async close(): Promise<void> {
    if (this.ownStore) await this.store.close();
  }

  private async openSession(
    q: Queryable,
    user: UserRow,
    now: number,
  ): Promise<{ token: string; session: Session }> {
    const token = newToken();
    const csrfToken = newToken();
    const expiresAt = now + this.sessionTtlMs;
    await q.run(SQL.insertSession, [tokenHash(token), user.id, csrfToken, now, expiresAt]);
    return {
      token,
      session: { userId: user.id, email: user.email, accountId: user.account_id, csrfToken, expiresAt },
    };
  }

  /** The progressive delay (LockoutOptions): refused without checking the password, and not counted. */
  private async assertNotLocked(q: Queryable, subjects: string[]): Promise<void> {
    const now = this.clock();
    const o = this.lockout;
    let retryMs = 0;
    for (const subject of subjects) {
      const perEmail = subject.startsWith('email:');
      const free = perEmail ? o.perEmail : o.perAddress;
      const { n, last } = (await q.get<{ n: number; last: number | null }>(SQL.failures, [
        subject,
        now - o.windowMs,
      ])) ?? { n: 0, last: null };
      if (n <= free || last === null) continue;
      const delay = Math.min(
        perEmail ? o.maxDelayMsPerEmail : o.maxDelayMsPerAddress,
        o.baseDelayMs * 2 ** Math.min(n - free - 1, 30),
      );
      retryMs = Math.max(retryMs, last + delay - now);
    }
    if (retryMs > 0) {
      const retry = Math.max(1, Math.ceil(retryMs / 1000));
      throw new RateLimitedError(
        `too many failed sign-ins; try again in ${retry < 60 ? `${retry} second(s)` : `${Math.ceil(retry / 60)} minute(s)`} or reset your password`,
        retry,
        null,
      );
    }
  }

  /** Inside a transaction: a token is good once, before its expiry; using it spends every link of that purpose. */
  private async consumeToken(q: Queryable, token: string, purpose: TokenPurpose): Promise<UserRow> {
    const row =
      token.length <= 100
        ? await q.get<{ user_id: string; expires_at: number; used_at: number | null }>(SQL.tokenByHash, [
            tokenHash(token),
            purpose,
          ])
        : undefined;
    const now = this.clock();
    if (!row || row.used_at !== null || row.expires_at <= now) {
      throw new AppError('bad_request', 'this link is invalid, expired or already used');
    }
    const user = await q.get<UserRow>(SQL.userById, [row.user_id]);
    if (!user) throw new AppError('bad_request', 'this link is invalid, expired or already used');
    await q.run(SQL.useTokens, [now, user.id, purpose]);
    return user;
  }
}

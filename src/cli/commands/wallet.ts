import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../config.ts';
import { walletOptions } from '../../wallet/from-config.ts';
import { auditWallet, type WalletAuditReport } from '../../wallet/audit.ts';
import { migrateToPostgres, type MigrateResult } from '../../wallet/migrate-to-postgres.ts';
import { microToCredits } from '../../wallet/money.ts';
import { parseWalletUrl } from '../../wallet/store.ts';
import { openWallet, openWalletStore, type Wallet } from '../../wallet/wallet.ts';
import { EXIT, UsageError } from '../errors.ts';
import { out } from '../output.ts';

/**
 * Operator commands on the wallet (data/wallet.db under REGDATA_DATA_DIR, the same file the server opens).
 * Each prints a short human text, or with --json one JSON document for scripts.
 */

export const keysHelp = `regdata keys create --email <e> --kind standard|admin [--test] [--credits <n>] [--plan payg|trial|unlimited] [--name <s>] [--json]
regdata keys revoke (--key-id <id> | --key <secret>) [--json]
regdata keys list --email <e> [--grants] [--json]

create: creates the account if new and a key; the secret is printed this once and stored only as a hash.
  --credits grants non-expiring top-up credit (at least 20); --plan sets the account's plan
  (trial: 7 days unmetered; unlimited: never charged). --test makes a test key (rgd_test_, standard only):
  answered from the synthetic test world, never charged, its own rate limit.
list: the account's own keys (with its in-app search key); --grants lists instead the keys that its MCP
  clients' OAuth grants act through (named "MCP client: <name>", disconnected on the dashboard's Connected
  clients page), each marked grant.`;

export const creditsHelp = `regdata credits add --email <e> --amount <n> [--json]
regdata credits show --email <e> [--json]

add: a top-up of non-expiring credit (at least 20 credits).
show: balance, pending holds, credit lots with expiry, plan and subscriptions.`;

export const subscriptionsHelp = `regdata subscriptions add --email <e> --country <CC> [--json]
regdata subscriptions remove --email <e> --country <CC> [--json]

A per-country subscription waives metering for that country only.`;

export const usageHelp = `regdata usage --email <e> [--since YYYY-MM-DD] [--limit <n>] [--json]

Requests, rows and credits per operation and country, then the latest usage records.`;

async function withWallet<T>(config: Config, fn: (wallet: Wallet) => Promise<T>): Promise<T> {
  // No periodic sweep in a short-lived CLI process; the start-up sweep still runs.
  const wallet = await openWallet(walletOptions(config, { sweepIntervalMs: 0 }));
  try {
    return await fn(wallet);
  } finally {
    await wallet.close();
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

function amount(value: string | undefined, flag: string): number {
  const n = Number(required(value, flag));
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a positive number`);
  return n;
}

export async function keysCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      kind: { type: 'string' },
      test: { type: 'boolean', default: false },
      credits: { type: 'string' },
      plan: { type: 'string' },
      name: { type: 'string' },
      'key-id': { type: 'string' },
      key: { type: 'string' },
      grants: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  if (sub === 'create') {
    const kind = required(values.kind, '--kind');
    if (kind !== 'standard' && kind !== 'admin') throw new UsageError('--kind must be standard or admin');
    const plan = values.plan;
    if (plan !== undefined && plan !== 'payg' && plan !== 'trial' && plan !== 'unlimited') {
      throw new UsageError('--plan must be payg, trial or unlimited');
    }
    const created = await withWallet(config, (w) =>
      w.createKey({
        email: required(values.email, '--email'),
        kind,
        mode: values.test ? 'test' : 'live',
        ...(values.credits !== undefined ? { credits: amount(values.credits, '--credits') } : {}),
        ...(plan !== undefined ? { plan } : {}),
        ...(values.name !== undefined ? { name: values.name } : {}),
      }),
    );
    if (values.json) {
      out.json({
        key: created.key,
        account: created.accountId,
        kind: created.kind,
        mode: created.mode,
        key_id: created.keyId,
        email: created.email,
        plan: created.plan,
        account_created: created.accountCreated,
        balance: created.balance,
      });
    } else {
      out.line(created.key);
      out.info(
        `key ${created.keyId} (${created.kind}, ${created.mode}) for ${created.email}` +
          `${created.accountCreated ? ' (new account)' : ''}, plan ${created.plan}, balance ${created.balance.toFixed(2)} credits.` +
          '\nThe key is shown this once; store it now.',
      );
    }
    return EXIT.ok;
  }
  if (sub === 'revoke') {
    const ref = values['key-id'] ? { keyId: values['key-id'] } : values.key ? { key: values.key } : null;
    if (!ref) throw new UsageError('--key-id or --key is required');
    const r = await withWallet(config, (w) => w.revokeKey(ref));
    if (values.json) out.json(r);
    else
      out.info(
        r.alreadyRevoked ? `key ${r.keyId} was already revoked` : `key ${r.keyId} revoked at ${r.revokedAt}`,
      );
    return EXIT.ok;
  }
  if (sub === 'list') {
    const email = required(values.email, '--email');
    const set = values.grants ? 'grants' : 'own';
    const keys = (await withWallet(config, (w) => w.listKeys({ email }, set))).map((k) =>
      values.grants ? { ...k, grant: true } : k,
    );
    if (values.json) out.json(keys);
    else {
      if (values.grants) out.info(`Keys of ${email}'s MCP clients' OAuth grants, not keys of its own:`);
      out.table(keys.map((k) => ({ ...k }) as unknown as Record<string, string | number | null>));
    }
    return EXIT.ok;
  }
  throw new UsageError(`unknown subcommand: keys ${sub ?? ''}\n\n${keysHelp}`);
}

export async function creditsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      amount: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const email = required(values.email, '--email');
  if (sub === 'add') {
    const r = await withWallet(config, (w) =>
      w.addCredits({ email, amount: amount(values.amount, '--amount') }),
    );
    if (values.json) out.json(r);
    else out.info(`added ${r.amount.toFixed(2)} credits to ${email}; balance ${r.balance.toFixed(2)}`);
    return EXIT.ok;
  }
  if (sub === 'show') {
    const r = await withWallet(config, (w) => w.balance({ email }));
    if (values.json) out.json(r);
    else {
      out.line(
        `${r.email}: balance ${r.balance.toFixed(2)} credits, pending ${r.pending.toFixed(2)}, plan ${r.plan}`,
      );
      if (r.trialEndsAt) out.line(`trial ends ${r.trialEndsAt}`);
      out.table(r.lots.map((l) => ({ ...l }) as unknown as Record<string, string | number | null>));
    }
    return EXIT.ok;
  }
  throw new UsageError(`unknown subcommand: credits ${sub ?? ''}\n\n${creditsHelp}`);
}

export async function subscriptionsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      country: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const email = required(values.email, '--email');
  const country = required(values.country, '--country').toUpperCase();
  if (sub === 'add') {
    const r = await withWallet(config, (w) => w.addSubscription({ email, country }));
    if (values.json) out.json(r);
    else out.info(`${email} now subscribes to ${r.country} (metering waived) from ${r.startedAt}`);
    return EXIT.ok;
  }
  if (sub === 'remove') {
    const r = await withWallet(config, (w) => w.removeSubscription({ email, country }));
    if (values.json) out.json(r);
    else
      out.info(
        r.ended
          ? `${email}: subscription to ${r.country} ended`
          : `${email} had no subscription to ${r.country}`,
      );
    return EXIT.ok;
  }
  throw new UsageError(`unknown subcommand: subscriptions ${sub ?? ''}\n\n${subscriptionsHelp}`);
}

export async function usageCommand(args: string[], config: Config): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const email = required(values.email, '--email');
  let since: Date | undefined;
  if (values.since !== undefined) {
    since = new Date(`${values.since}T00:00:00Z`);
    if (Number.isNaN(since.getTime())) throw new UsageError('--since must be a date YYYY-MM-DD');
  }
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError('--limit must be a non-negative integer');
  const r = await withWallet(config, (w) => w.usage({ email, limit, ...(since ? { since } : {}) }));
  if (values.json) {
    out.json(r);
    return EXIT.ok;
  }
  out.line(
    `${r.email} ${r.from} .. ${r.to}: ${r.totals.requests} requests, ${r.totals.rows} rows, ${r.totals.credits.toFixed(2)} credits`,
  );
  out.table(r.byOperation.map((o) => ({ ...o, credits: o.credits.toFixed(2) })));
  return EXIT.ok;
}

export const walletHelp = `regdata wallet audit [--json]
regdata wallet migrate --to postgres://… [--from sqlite:<path>] [--json]

audit: checks the ledger's invariants on the configured wallet (REGDATA_WALLET_URL, SQLite or PostgreSQL)
  and writes nothing: lot fields equal their transfers, each account's transfers equal its lots, no lot
  below zero, holds agree with their transfers, no hold pending past its timeout (plus two sweep
  intervals and a minute), idempotency rows consistent with their holds and charges, usage records equal
  the posts. One line per invariant; exit 1 naming the ids at fault when any is broken, 0 when all hold.
  Run it after a restore and nightly (docs/deploy.md); the invariants are in docs/wallet.md ("Audit").

migrate: copies the SQLite wallet (the configured one, REGDATA_WALLET_URL unset or sqlite:…, or --from)
  into an EMPTY PostgreSQL database: every table and row with its ids, in one transaction. Stop every
  server and command using the wallet first. Refused while a process still uses the wallet, while a hold
  is pending, or when the target has rows or tables of its own. Prints the ledger audit (balances per
  account, lots, transfers, rows per table) of the source and of the copy; the copy is committed only when
  they are equal (exit 0), otherwise nothing is written (exit 1). Then set REGDATA_WALLET_URL to the target.
  Procedure: docs/deploy.md ("Moving a SQLite wallet to PostgreSQL").`;

export async function walletCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'audit') return walletAudit(rest, config);
  if (sub !== 'migrate') throw new UsageError(`unknown subcommand: wallet ${sub ?? ''}\n\n${walletHelp}`);
  const { values } = parseArgs({
    args: rest,
    options: {
      to: { type: 'string' },
      from: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const to = required(values.to, '--to');
  if (parseWalletUrl(to).kind !== 'postgres') throw new UsageError('--to must be a postgres:// URL');
  let sqlitePath: string;
  if (values.from !== undefined) {
    const from = parseWalletUrl(values.from);
    if (from.kind !== 'sqlite') throw new UsageError('--from must be sqlite:<path>');
    sqlitePath = path.resolve(from.path);
  } else if (config.wallet.dbPath !== null) {
    sqlitePath = config.wallet.dbPath;
  } else {
    throw new UsageError(
      'REGDATA_WALLET_URL is already PostgreSQL: name the SQLite wallet with --from sqlite:<path>',
    );
  }
  const r = await migrateToPostgres({ sqlitePath, pgUrl: to });
  if (values.json) out.json(r);
  else printAudits(r);
  if (r.committed) {
    out.info(`migrated ${r.from} to ${r.to}: audits equal; now set REGDATA_WALLET_URL to the target`);
  }
  if (!r.committed) {
    out.error(`the audit of the copy differs from the source's: nothing was written to ${r.to}`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

function printAudits(r: MigrateResult): void {
  const credits = (micro: number) => microToCredits(micro).toFixed(6);
  const line = (what: string, a: string | number, b: string | number) =>
    ({ what, source: String(a), target: String(b), same: a === b ? '' : 'DIFFERS' }) as Record<
      string,
      string
    >;
  const rows: Record<string, string>[] = [];
  const { before: s, after: t } = r;
  const targetAccounts = new Map(t.accounts.map((a) => [a.account, a]));
  for (const a of s.accounts) {
    const b = targetAccounts.get(a.account);
    rows.push(line(`balance ${a.account}`, credits(a.balance), b ? credits(b.balance) : 'missing'));
  }
  for (const a of t.accounts.filter((x) => !s.accounts.some((y) => y.account === x.account))) {
    rows.push(line(`balance ${a.account}`, 'missing', credits(a.balance)));
  }
  rows.push(line('lots', s.lots.count, t.lots.count));
  rows.push(line('lots credits posted', credits(s.lots.creditsPosted), credits(t.lots.creditsPosted)));
  rows.push(line('lots debits pending', credits(s.lots.debitsPending), credits(t.lots.debitsPending)));
  rows.push(line('lots debits posted', credits(s.lots.debitsPosted), credits(t.lots.debitsPosted)));
  rows.push(line('lots debits expired', credits(s.lots.debitsExpired), credits(t.lots.debitsExpired)));
  rows.push(line('transfers', s.transfers.count, t.transfers.count));
  rows.push(line('transfers sum', credits(s.transfers.amount), credits(t.transfers.amount)));
  for (const table of Object.keys(s.rows))
    rows.push(line(`rows ${table}`, s.rows[table]!, t.rows[table] ?? 0));
  out.line(`ledger audit: source ${r.from}, target ${r.to}`);
  out.table(rows);
}

/** Past its timeout a hold waits for the next sweep; two intervals and a minute leave room for a slow one. */
function staleGraceMs(config: Config): number {
  return 2 * config.wallet.sweepIntervalMs + 60_000;
}

const INVARIANT_LABELS: Record<WalletAuditReport['invariants'][number]['name'], [string, string]> = {
  lot_balances: ['lot balances equal their transfers', 'lots'],
  conservation: ['conservation: transfers equal lots per account', 'accounts'],
  no_overdrawn_lot: ['no lot below zero', 'lots'],
  holds_match_transfers: ['holds agree with their transfers', 'holds'],
  no_stale_hold: ['no hold pending past its timeout', 'pending holds'],
  idempotency: ['idempotency rows consistent', 'rows'],
  usage_matches_ledger: ['usage records equal the posts', 'accounts'],
};

/** Shown per invariant before "and N more": the JSON output always has them all. */
const SHOWN_VIOLATIONS = 20;

async function walletAudit(args: string[], config: Config): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  // The store alone, not openWallet: opening a wallet sweeps, which would void the very stale holds the
  // audit is meant to report, and registers an instance in a wallet the operator may be checking read-only.
  const store = await openWalletStore(config.wallet.url, {
    poolSize: 1,
    applicationName: 'regdata wallet audit',
  });
  let report: WalletAuditReport;
  try {
    report = await store.tx(async (q) => {
      if (q.dialect === 'postgres') {
        await q.run('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      }
      return auditWallet(q, Date.now(), { staleGraceMs: staleGraceMs(config) });
    });
  } finally {
    await store.close();
  }
  const failed = report.invariants.filter((i) => i.violations.length > 0);
  if (values.json) {
    out.json({ wallet: store.location, ...report });
  } else {
    out.line(`wallet audit of ${store.location} at ${new Date(report.now).toISOString()}`);
    for (const inv of report.invariants) {
      const [label, unit] = INVARIANT_LABELS[inv.name];
      const n = inv.violations.length;
      out.line(
        `${n === 0 ? 'ok  ' : 'FAIL'}  ${inv.name.padEnd(21)}  ${label}: ${inv.checked} ${unit} checked, ${n} violation${n === 1 ? '' : 's'}`,
      );
      for (const v of inv.violations.slice(0, SHOWN_VIOLATIONS)) out.line(`        ${v.detail}`);
      if (n > SHOWN_VIOLATIONS) out.line(`        and ${n - SHOWN_VIOLATIONS} more (--json lists them all)`);
    }
    out.line(`open holds within their timeout: ${report.openHolds}`);
  }
  if (failed.length > 0) {
    out.error(`wallet audit failed: ${failed.map((i) => i.name).join(', ')}`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

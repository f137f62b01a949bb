import { Endpoints } from '../../src/webhooks/endpoints.ts';
import { Watchlists } from '../../src/watchlists/watchlists.ts';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { AuthorizationServer } from '../../src/oauth/authorization-server.ts';
import { Identity } from '../../src/identity/identity.ts';
import { FormOnce } from '../../src/web/form-once.ts';
import { walletOptions } from '../../src/wallet/from-config.ts';
import { openWallet, type Wallet } from '../../src/wallet/wallet.ts';
import { freshPgLocation, withClient } from './backends.ts';
import { call, expectAuditClean, micro, principalFor, rows, tempDir, TestClock } from './helpers.ts';

/*
 * Issue 18 item 6: `regdata wallet migrate --to postgres://…`. A SQLite wallet with real activity made
 * through the real wallet and identity services is moved by the real CLI (a child process) into a fresh
 * PostgreSQL schema; then every table is compared row for row by plain SQL on both databases, and the
 * migrated wallet is used: balances, a charge, new ids after the copied ones, a session that still signs in.
 */

const BIN = fileURLToPath(new URL('../../bin/regdata.mjs', import.meta.url));
const execFileP = promisify(execFile);
const DAY = 86_400_000;

/** Tables the activity below leaves empty on purpose: the registry of processes (closed ones unregister). */
const MAY_BE_EMPTY = new Set(['wallet_instances']);

async function cli(
  args: string[],
  dataDir: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('REGDATA_')) env[k] = v;
  env['REGDATA_DATA_DIR'] = dataDir;
  try {
    const r = await execFileP(process.execPath, [BIN, ...args], { env, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

type Row = Record<string, unknown>;

/** A value as comparable text: integers from either driver as digits, blobs as hex, NULL as null. */
function norm(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return `x${v.toString('hex')}`;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return v;
}

function canonical(rows: Row[]): string[] {
  return rows
    .map((r) =>
      JSON.stringify(
        Object.keys(r)
          .sort()
          .map((k) => [k, norm(r[k])]),
      ),
    )
    .sort();
}

function sqliteTables(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (
      db
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'`,
        )
        .pluck()
        .all() as string[]
    ).sort();
  } finally {
    db.close();
  }
}

/** Every row of a SQLite table, with its implicit rowid when the PostgreSQL table spells it out. */
function sqliteRows(file: string, table: string, withRowid: boolean): Row[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT ${withRowid ? 'rowid AS rowid, ' : ''}* FROM "${table}"`).all() as Row[];
  } finally {
    db.close();
  }
}

async function pgTables(url: string): Promise<string[]> {
  return withClient(url, async (c) =>
    (
      await c.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()
         AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'`,
      )
    ).rows
      .map((r) => r.table_name)
      .sort(),
  );
}

async function pgRows(url: string, table: string): Promise<Row[]> {
  return withClient(url, async (c) => (await c.query(`SELECT * FROM "${table}"`)).rows as Row[]);
}

async function pgCounts(url: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const t of await pgTables(url)) counts[t] = (await pgRows(url, t)).length;
  return counts;
}

/**
 * A wallet with some of everything: top-ups, a trial, a subscription, an expired grant, charged, free,
 * failed (refunded) and replayed metered calls, a confirmed and a pending order, users, a session, e-mail
 * tokens, sign-in failures and a spent order-form token. Returns what the later checks need.
 */
async function busyWallet(file: string) {
  // Two days and an hour ago: the grant below expires on the way, while idempotency keys recorded after
  // that are still within their 24 hours when the migration's start-up sweep purges expired ones.
  const clock = new TestClock(Date.now() - 2 * DAY - 3_600_000);
  const wallet = await openWallet({ dbPath: file, sweepIntervalMs: 0, now: clock.now });
  const identity = new Identity({ store: wallet.store, now: clock.now, mailLimits: { perAddress: 1000 } });
  try {
    const payg = await wallet.createKey({
      email: 'payg@test.local',
      kind: 'standard',
      plan: 'payg',
      credits: 50,
    });
    const trial = await wallet.createKey({ email: 'trial@test.local', kind: 'standard', plan: 'trial' });
    await wallet.createKey({ email: 'ops@test.local', kind: 'admin' });
    await wallet.addCredits({
      email: 'payg@test.local',
      amount: 5,
      source: 'grant',
      expiresAt: new Date(clock.ms + DAY),
    });
    await wallet.addSubscription({ email: 'payg@test.local', country: 'EE' });
    const p = await principalFor(wallet, payg.key);
    for (let i = 0; i < 6; i++) {
      await wallet.metering.runMetered(
        call(p, { country: 'LV', reserveRows: 10, fingerprint: `q=${i}` }),
        rows(3),
      );
    }
    await wallet.metering.runMetered(call(p, { country: 'EE', fingerprint: 'ee' }), rows(5));
    await expect(
      wallet.metering.runMetered(call(p, { country: 'NO', fingerprint: 'fails' }), () =>
        Promise.reject(new Error('engine failed')),
      ),
    ).rejects.toThrow('engine failed');
    await wallet.metering.runMetered(call(p, { country: 'NO', fingerprint: 'none' }), rows(0));
    const tp = await principalFor(wallet, trial.key);
    await wallet.metering.runMetered(call(tp, { country: 'SE', fingerprint: 'trial' }), rows(7));
    // The grant expires; the audit books what was left of it.
    clock.advance(2 * DAY);
    await expectAuditClean(wallet);

    const idem = call(p, { country: 'FI', reserveRows: 4, idempotencyKey: 'retry-1', fingerprint: 'fi' });
    await wallet.metering.runMetered(idem, rows(4));
    await wallet.metering.runMetered(idem, rows(4));
    // A dashboard user: verified, linked, signed in (a live session), one failed sign-in, a reset link.
    const { verifyToken, userId } = await identity.signUp(
      'user@test.local',
      'correct horse battery',
      '10.0.0.1',
    );
    await identity.verifyEmail(verifyToken!);
    const { accountId } = await wallet.completeRegistration('user@test.local');
    await identity.linkAccount(userId, accountId);
    // An MCP client the user connected (src/oauth): its grant record and the key it acts through.
    const oauth = new AuthorizationServer({ wallet, secret: Buffer.alloc(32, 7), proxy: false });
    const origin = 'http://127.0.0.1:8080';
    await oauth.consent(oauth.provider(origin), {
      accountId,
      clientId: 'agent-client',
      clientName: 'Test agent',
      missingScope: ['offline_access'],
      missingResourceScopes: { [oauth.resource(origin)]: ['mcp:data', 'mcp:free'] },
      metered: true,
    });
    // Watchlists of the account (issue 31), an event it was charged for, a webhook endpoint, and one
    // delivery with its attempt (written as the deliverer writes them: a real one needs a receiver).
    const lists = new Watchlists(wallet.store, () => clock.now().getTime());
    const list = await lists.create(accountId, { name: 'suppliers', country: 'EE', companies: ['10000019'] });
    await lists.create(accountId, { name: 'builders', country: 'EE', search: { company_name: ['ehitus'] } });
    await lists.claimCharges(accountId, [`20261127T030000Z.EE.${'0'.repeat(16)}`]);
    const endpoint = await new Endpoints(wallet.store, () => clock.now().getTime(), {
      allowPrivate: true,
    }).create(accountId, 'http://127.0.0.1:9/hook');
    await wallet.store.run(
      `INSERT INTO webhook_deliveries (endpoint_id, account_id, event_id, country, payload, created_at, expires_at, next_at,
         state, attempts, last_status, last_error)
       VALUES (?, ?, ?, 'EE', ?, 1, 2, 3, 'pending', 1, 500, 'HTTP 500')`,
      [
        endpoint.id,
        accountId,
        `20261127T030000Z.EE.${'0'.repeat(16)}`,
        JSON.stringify({ watchlist: list.id }),
      ],
    );
    await wallet.store.run(
      `INSERT INTO webhook_attempts (delivery_id, at, status, error, charged_micro)
       SELECT id, 3, 500, 'HTTP 500', 0 FROM webhook_deliveries`,
    );
    const { token: sessionToken } = await identity.signIn(
      'user@test.local',
      'correct horse battery',
      '10.0.0.1',
    );
    await expect(identity.signIn('user@test.local', 'wrong password!!', '10.0.0.2')).rejects.toThrow();
    await identity.requestPasswordReset('user@test.local', '10.0.0.1');
    await identity.signUp('pending@test.local', 'another password', '10.0.0.3');
    const paid = await wallet.placeOrder({
      accountId,
      kind: 'topup',
      credits: 25,
      provider: 'invoice',
      reference: 'INV-1',
    });
    await wallet.confirmOrder(paid.orderId);
    await wallet.placeOrder({
      accountId,
      kind: 'country',
      country: 'PL',
      provider: 'invoice',
      reference: 'INV-2',
    });
    const once = new FormOnce(wallet.store, () => clock.ms);
    expect((await once.spend(await once.issue(accountId), accountId)).state).toBe('spent');
    await once.issue(accountId);

    const balances: Record<string, number> = {};
    for (const email of ['payg@test.local', 'trial@test.local', 'ops@test.local', 'user@test.local']) {
      balances[email] = (await wallet.balance({ email })).balance;
    }
    return { paygKey: payg.key, sessionToken, balances };
  } finally {
    await identity.close();
    await wallet.close();
  }
}

const PG = inject('walletPgUrl');

// Each test starts the CLI up to four times (1-3 s each through tsx, 8.4 s for four at load 7 on the
// 2-core machine): 180 s leaves room for a machine far busier than that, where 60 s would not.
describe.skipIf(!PG)('regdata wallet migrate --to postgres://', { timeout: 180_000 }, () => {
  it('copies every table row for row, audits equal, and the migrated wallet keeps working', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'wallet.db');
    const before = await busyWallet(file);
    const url = await freshPgLocation();

    const res = await cli(['wallet', 'migrate', '--from', `sqlite:${file}`, '--to', url, '--json'], dir);
    expect(res.stderr).toContain('audits equal');
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout) as { before: unknown; after: unknown; committed: boolean };
    expect(report.committed).toBe(true);
    expect(report.after).toEqual(report.before);

    // Row for row, every table, read independently with plain SQL on both sides.
    const tables = sqliteTables(file);
    expect(await pgTables(url)).toEqual([...tables, 'rate_limits'].sort());
    for (const table of tables) {
      const target = await pgRows(url, table);
      const source = sqliteRows(file, table, target.length > 0 && 'rowid' in target[0]!);
      if (!MAY_BE_EMPTY.has(table)) expect(source.length, `${table} has rows to copy`).toBeGreaterThan(0);
      expect(canonical(target), table).toEqual(canonical(source));
    }
    // Including what the triggers recomputed: the lots' balances equal the transfer log, independently summed.
    const lots = await pgRows(url, 'credit_lots');
    const transfers = sqliteRows(file, 'transfers', false);
    for (const lot of lots) {
      const sum = (kind: string) =>
        transfers
          .filter((t) => t['lot_id'] === Number(lot['id']) && t['kind'] === kind)
          .reduce((s, t) => s + Number(t['amount']), 0);
      expect(Number(lot['credits_posted'])).toBe(sum('grant'));
      expect(Number(lot['debits_posted'])).toBe(sum('post'));
      expect(Number(lot['debits_expired'])).toBe(sum('expire'));
      // No hold was pending, so nothing is reserved.
      expect(Number(lot['debits_pending'])).toBe(0);
    }

    // The server's way in: REGDATA_WALLET_URL from the environment.
    const config = loadConfig({ REGDATA_DATA_DIR: dir, REGDATA_WALLET_URL: url });
    const wallet: Wallet = await openWallet(walletOptions(config, { sweepIntervalMs: 0 }));
    const identity = new Identity({ store: wallet.store });
    try {
      for (const [email, balance] of Object.entries(before.balances)) {
        expect((await wallet.balance({ email })).balance, email).toBe(balance);
      }
      expect((await identity.session(before.sessionToken))?.email).toBe('user@test.local');
      // The identity column of each table the use below adds to, and what the copy left in it.
      const ids: [string, string][] = [
        ['transfers', 'id'],
        ['holds', 'id'],
        ['usage_records', 'id'],
        ['credit_lots', 'id'],
        ['api_keys', 'rowid'],
      ];
      const idsOf = async (table: string, col: string) =>
        (await pgRows(url, table)).map((r) => Number(r[col]));
      const copied = new Map<string, number[]>();
      for (const [t, c] of ids) copied.set(t, await idsOf(t, c));
      const p = await principalFor(wallet, before.paygKey);
      const price = wallet.prices['LV'];
      const charged = await wallet.metering.runMetered(
        call(p, { country: 'LV', reserveRows: 10, fingerprint: 'after' }),
        rows(4),
      );
      expect(charged.meta.credits_charged).toBeCloseTo(4 * price, 9);
      const after = (await wallet.balance({ email: 'payg@test.local' })).balance;
      expect(micro(after)).toBe(micro(before.balances['payg@test.local']!) - micro(4 * price));
      await wallet.addCredits({ email: 'payg@test.local', amount: 20 });
      await wallet.createKey({ email: 'new@test.local', kind: 'standard', credits: 20 });
      // New rows continue after the copied ids: every table grew, and only above its largest copied id.
      for (const [t, c] of ids) {
        const was = copied.get(t)!;
        const now = await idsOf(t, c);
        const top = Math.max(...was);
        expect(now.length, t).toBeGreaterThan(was.length);
        expect(now.filter((id) => id <= top).sort(), t).toEqual([...was].sort());
      }
      await expectAuditClean(wallet);
    } finally {
      await identity.close();
      await wallet.close();
    }
  });

  it('refuses a target that has rows, or tables of its own, and writes nothing', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'wallet.db');
    await busyWallet(file);
    const url = await freshPgLocation();
    // REGDATA_DATA_DIR=dir: the configured wallet is dir/wallet.db, the one built above.
    expect((await cli(['wallet', 'migrate', '--to', url], dir)).code).toBe(0);
    const first = await cli(['wallet', 'migrate', '--to', url], dir);
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/not empty: it has rows in accounts \(\d+\)/);
    const full = await pgCounts(url);
    expect(full['accounts']).toBeGreaterThan(0);

    const again = await cli(['wallet', 'migrate', '--from', `sqlite:${file}`, '--to', url], dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('nothing was written');
    expect(await pgCounts(url)).toEqual(full);

    const foreign = await freshPgLocation();
    await withClient(foreign, (c) => c.query('CREATE TABLE invoices (id INTEGER)'));
    const other = await cli(['wallet', 'migrate', '--from', `sqlite:${file}`, '--to', foreign], dir);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('tables that are not the wallet');
    expect(await pgTables(foreign)).toEqual(['invoices']);
  });

  it('exits non-zero and writes nothing when the copy audits differently (a lot that disagrees with its log)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'wallet.db');
    await busyWallet(file);
    // SQLite lets a raw UPDATE move a lot's balance fields; the copy recomputes them from the transfers.
    const db = new Database(file);
    try {
      db.prepare('UPDATE credit_lots SET credits_posted = credits_posted + 1 WHERE id = 1').run();
    } finally {
      db.close();
    }
    const url = await freshPgLocation();
    const r = await cli(['wallet', 'migrate', '--from', `sqlite:${file}`, '--to', url], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/lots credits posted\s+\S+\s+\S+\s+DIFFERS/);
    expect(r.stderr).toContain('nothing was written');
    expect(await pgTables(url)).toEqual([]);
  });

  it('says clearly when the target cannot be reached, without printing its password', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'wallet.db');
    await busyWallet(file);
    const r = await cli(
      ['wallet', 'migrate', '--from', `sqlite:${file}`, '--to', 'postgres://u:s3cret@127.0.0.1:1/none'],
      dir,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot connect to the target PostgreSQL postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/none/,
    );
    expect(r.stderr + r.stdout).not.toContain('s3cret');
  });

  it('refuses while a process still uses the wallet', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'wallet.db');
    await busyWallet(file);
    const url = await freshPgLocation();
    const running = await openWallet({ dbPath: file, sweepIntervalMs: 0 });
    try {
      const r = await cli(['wallet', 'migrate', '--from', `sqlite:${file}`, '--to', url], dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`still in use by ins_\\w+ \\(pid ${process.pid} `));
      expect(await pgTables(url)).toEqual([]);
    } finally {
      await running.close();
    }
  });
});

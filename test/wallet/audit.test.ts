import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { WalletAuditReport } from '../../src/wallet/audit.ts';
import { isPostgres, rawRows, rawValue, withClient } from './backends.ts';
import {
  WALLET_BACKENDS,
  call,
  deferred,
  principalFor,
  rows,
  signalled,
  tempDir,
  testWallet,
  useBackend,
} from './helpers.ts';

/*
 * Issue 33 item 6: `regdata wallet audit`, run as the operator runs it (the real CLI in a child process,
 * pointed at the wallet by REGDATA_WALLET_URL), on a wallet that real metered calls have used. Each
 * invariant is then broken in one documented way by raw SQL, past the database's own guards where it has
 * them (that is the point: the audit is for a wallet someone restored, edited or corrupted), and the audit
 * must exit 1 naming the invariant and the ids at fault. The lot-level checks are also recomputed here in
 * plain TypeScript from the raw rows, independently of the audit's SQL.
 */

const BIN = fileURLToPath(new URL('../../bin/regdata.mjs', import.meta.url));

interface CliAudit {
  code: number;
  report: WalletAuditReport;
  text: string;
}

function runCli(location: string, json: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  const url = isPostgres(location) ? location : `sqlite:${location}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    REGDATA_DATA_DIR: tempDir(),
    REGDATA_WALLET_URL: url,
  };
  const args = [BIN, 'wallet', 'audit', ...(json ? ['--json'] : [])];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The audit as an operator's script sees it (--json), plus the human summary's lines. */
async function cliAudit(location: string): Promise<CliAudit> {
  const [json, text] = await Promise.all([runCli(location, true), runCli(location, false)]);
  expect(text.code, text.stderr).toBe(json.code);
  return {
    code: json.code,
    report: JSON.parse(json.stdout) as WalletAuditReport,
    text: text.stdout + text.stderr,
  };
}

function violated(report: WalletAuditReport): Record<string, string[]> {
  return Object.fromEntries(
    report.invariants
      .filter((i) => i.violations.length > 0)
      .map((i) => [i.name, i.violations.map((v) => v.id)]),
  );
}

/**
 * Raw SQL that the wallet's own guards would refuse. SQLite: triggers cannot be switched off, so the one in
 * the way is dropped in this test copy; CHECKs can (ignore_check_constraints). PostgreSQL: replica mode
 * skips triggers, and a CHECK is dropped. Both need the test server's superuser, which the suite has.
 */
async function tamper(location: string, sql: string[]): Promise<void> {
  if (isPostgres(location)) {
    await withClient(location, async (c) => {
      await c.query('SET session_replication_role = replica');
      for (const s of sql) await c.query(s);
    });
    return;
  }
  const db = new Database(location);
  try {
    db.pragma('ignore_check_constraints = ON');
    db.exec('DROP TRIGGER IF EXISTS transfers_no_delete');
    for (const s of sql) db.exec(s);
  } finally {
    db.close();
  }
}

interface RawLot {
  id: number;
  account_id: string;
  credits_posted: number;
  debits_pending: number;
  debits_posted: number;
  debits_expired: number;
}
interface RawTransfer {
  id: number;
  account_id: string;
  lot_id: number;
  kind: string;
  amount: number;
  pending_id: number | null;
}

/** Invariants 1 and 2 recomputed in TypeScript from every lot and transfer, sharing no SQL with the audit. */
async function recompute(location: string) {
  const lots = (await rawRows<RawLot>(location, 'SELECT * FROM credit_lots')).map((l) => ({
    ...l,
    credits_posted: Number(l.credits_posted),
    debits_pending: Number(l.debits_pending),
    debits_posted: Number(l.debits_posted),
    debits_expired: Number(l.debits_expired),
  }));
  const transfers = (await rawRows<RawTransfer>(location, 'SELECT * FROM transfers')).map((t) => ({
    ...t,
    amount: Number(t.amount),
    pending_id: t.pending_id === null ? null : Number(t.pending_id),
  }));
  const resolved = new Set(transfers.map((t) => t.pending_id).filter((id) => id !== null));
  const lotSums = new Map<number, { g: number; pe: number; po: number; e: number }>();
  const accountNet = new Map<string, number>();
  for (const t of transfers) {
    const s = lotSums.get(Number(t.lot_id)) ?? { g: 0, pe: 0, po: 0, e: 0 };
    const open = t.kind === 'pending' && !resolved.has(Number(t.id));
    if (t.kind === 'grant') s.g += t.amount;
    if (open) s.pe += t.amount;
    if (t.kind === 'post') s.po += t.amount;
    if (t.kind === 'expire') s.e += t.amount;
    lotSums.set(Number(t.lot_id), s);
    const sign = t.kind === 'grant' ? 1 : t.kind === 'post' || t.kind === 'expire' || open ? -1 : 0;
    accountNet.set(t.account_id, (accountNet.get(t.account_id) ?? 0) + sign * t.amount);
  }
  const remaining = (l: (typeof lots)[number]) =>
    l.credits_posted - l.debits_pending - l.debits_posted - l.debits_expired;
  const lotHeld = new Map<string, number>();
  for (const l of lots) lotHeld.set(l.account_id, (lotHeld.get(l.account_id) ?? 0) + remaining(l));
  const lotBalances = lots
    .filter((l) => {
      const s = lotSums.get(Number(l.id)) ?? { g: 0, pe: 0, po: 0, e: 0 };
      return (
        s.g !== l.credits_posted ||
        s.pe !== l.debits_pending ||
        s.po !== l.debits_posted ||
        s.e !== l.debits_expired
      );
    })
    .map((l) => String(l.id));
  const accounts = new Set([...accountNet.keys(), ...lotHeld.keys()]);
  return {
    lots: lots.length,
    lotBalances,
    overdrawn: lots.filter((l) => remaining(l) < 0).map((l) => String(l.id)),
    conservation: [...accounts].filter((a) => (accountNet.get(a) ?? 0) !== (lotHeld.get(a) ?? 0)).sort(),
  };
}

function names(report: WalletAuditReport, name: string): string[] {
  return report.invariants.find((i) => i.name === name)!.violations.map((v) => v.id);
}

describe.each(WALLET_BACKENDS)('%s: regdata wallet audit', (backend) => {
  useBackend(backend);

  /** A wallet two accounts have really used: charged calls, a failed one, one with an Idempotency-Key. */
  async function usedWallet() {
    const { wallet, dbPath } = await testWallet();
    const a = await wallet.createKey({ email: 'a@example.com', kind: 'standard', plan: 'payg', credits: 40 });
    const b = await wallet.createKey({ email: 'b@example.com', kind: 'standard', plan: 'payg', credits: 25 });
    const pa = await principalFor(wallet, a.key);
    const pb = await principalFor(wallet, b.key);
    await wallet.metering.runMetered(call(pa, { reserveRows: 20 }), rows(7));
    await wallet.metering.runMetered(call(pa, { country: 'SE', reserveRows: 10 }), rows(10));
    await wallet.metering.runMetered(call(pb, { idempotencyKey: 'idem-1' }), rows(3));
    await wallet.metering.runMetered(call(pb, { idempotencyKey: 'idem-1' }), rows(3)); // a replay
    await wallet.metering.runMetered(call(pb, { reserveRows: 5 }), rows(0));
    await expect(
      wallet.metering.runMetered(call(pa), () => Promise.reject(new Error('upstream failed'))),
    ).rejects.toThrow('upstream failed');
    return { wallet, dbPath, a, b, pa, pb };
  }

  it('passes a wallet used by real metered calls (exit 0), and agrees with a recomputation in TypeScript', async () => {
    const { dbPath } = await usedWallet();
    const { code, report, text } = await cliAudit(dbPath);
    expect(violated(report)).toEqual({});
    expect(report.ok).toBe(true);
    expect(code).toBe(0);
    const independent = await recompute(dbPath);
    expect(independent).toMatchObject({ lotBalances: [], overdrawn: [], conservation: [] });
    expect(report.invariants.find((i) => i.name === 'lot_balances')!.checked).toBe(independent.lots);
    expect(report.invariants.find((i) => i.name === 'idempotency')!.checked).toBe(1);
    // One summary line per invariant.
    for (const inv of report.invariants) expect(text).toMatch(new RegExp(`^ok +${inv.name} `, 'm'));
  });

  it('a transfer row removed (the grant of a lot deleted): lot_balances and conservation fail', async () => {
    const { dbPath, b } = await usedWallet();
    const grant = await rawRows<{ id: number; lot_id: number }>(
      dbPath,
      `SELECT t.id, t.lot_id FROM transfers t
       WHERE t.kind = 'grant' AND t.lot_id = (SELECT max(id) FROM credit_lots WHERE account_id = ?)`,
      [b.accountId],
    );
    expect(grant).toHaveLength(1);
    await tamper(dbPath, [`DELETE FROM transfers WHERE id = ${Number(grant[0]!.id)}`]);
    const { code, report, text } = await cliAudit(dbPath);
    expect(code).toBe(1);
    const lot = String(grant[0]!.lot_id);
    expect(violated(report)).toEqual({ lot_balances: [lot], conservation: [b.accountId] });
    expect(await recompute(dbPath)).toMatchObject({ lotBalances: [lot], conservation: [b.accountId] });
    expect(text).toMatch(/^FAIL +lot_balances /m);
    expect(text).toContain(`lot ${lot}:`);
    expect(text).toContain('wallet audit failed: lot_balances, conservation');
  });

  it('a lot overdrawn (an expire transfer 1 credit beyond what it held): no_overdrawn_lot fails alone', async () => {
    const { dbPath, a } = await usedWallet();
    const [lot] = await rawRows<{ id: number; remaining: number }>(
      dbPath,
      `SELECT id, credits_posted - debits_pending - debits_posted - debits_expired AS remaining
       FROM credit_lots WHERE account_id = ? ORDER BY id LIMIT 1`,
      [a.accountId],
    );
    const id = Number(lot!.id);
    const at = Number(await rawValue(dbPath, 'SELECT max(created_at) FROM transfers'));
    await tamper(dbPath, [
      ...(backend === 'postgres'
        ? [
            'ALTER TABLE credit_lots DROP CONSTRAINT lot_never_overdrawn',
            'SET session_replication_role = DEFAULT',
          ]
        : []),
      `INSERT INTO transfers (account_id, lot_id, kind, amount, created_at)
       VALUES ('${a.accountId}', ${id}, 'expire', ${Number(lot!.remaining) + 1_000_000}, ${at})`,
    ]);
    const { code, report } = await cliAudit(dbPath);
    expect(code).toBe(1);
    expect(violated(report)).toEqual({ no_overdrawn_lot: [String(id)] });
    expect(await recompute(dbPath)).toMatchObject({
      lotBalances: [],
      overdrawn: [String(id)],
      conservation: [],
    });
  });

  it('a pending hold aged past its timeout: no_stale_hold fails naming it, and passes once it settles', async () => {
    const { wallet, dbPath, pa } = await usedWallet();
    const gate = deferred<void>();
    const s = signalled(async () => {
      await gate.promise;
      return { result: null, chargeableRows: 2, rowsReturned: 2 };
    });
    const flight = wallet.metering.runMetered(call(pa, { reserveRows: 5 }), s.run);
    await s.reserved;
    const hold = Number(await rawValue(dbPath, `SELECT id FROM holds WHERE state = 'pending'`));
    // A call in flight within its timeout is normal, not a violation.
    const inFlight = await cliAudit(dbPath);
    expect(inFlight.code).toBe(0);
    expect(inFlight.report.openHolds).toBe(1);
    await tamper(dbPath, [`UPDATE holds SET timeout_at = ${Date.now() - 3_600_000} WHERE id = ${hold}`]);
    const { code, report, text } = await cliAudit(dbPath);
    expect(code).toBe(1);
    expect(violated(report)).toEqual({ no_stale_hold: [String(hold)] });
    expect(text).toContain(`hold ${hold}: still pending`);
    gate.resolve();
    await flight;
    expect((await cliAudit(dbPath)).code).toBe(0);
  });

  it('an idempotency row pointing at no hold: idempotency fails naming the key', async () => {
    const { dbPath, pb } = await usedWallet();
    await tamper(dbPath, [`UPDATE idempotency_keys SET hold_id = 987654`]);
    const { code, report, text } = await cliAudit(dbPath);
    expect(code).toBe(1);
    expect(violated(report)).toEqual({ idempotency: [`${pb.keyId}/idem-1`] });
    expect(text).toContain('names hold 987654, which does not exist');
  });

  it("an idempotency answer claiming another charge than the ledger's: idempotency fails", async () => {
    const { dbPath, pb } = await usedWallet();
    const response = String(await rawValue(dbPath, 'SELECT response FROM idempotency_keys'));
    const edited = JSON.stringify({ ...JSON.parse(response), meta: { credits_charged: 0 } });
    await tamper(dbPath, [`UPDATE idempotency_keys SET response = '${edited.replace(/'/g, "''")}'`]);
    const { code, report } = await cliAudit(dbPath);
    expect(code).toBe(1);
    expect(names(report, 'idempotency')).toEqual([`${pb.keyId}/idem-1`]);
  });

  it('a posted hold set back to pending: holds_match_transfers fails naming it', async () => {
    const { wallet, dbPath, a } = await usedWallet();
    // Closed first: closing voids the instance's pending holds, and this one only looks pending.
    await wallet.close();
    const hold = Number(
      await rawValue(dbPath, `SELECT min(id) FROM holds WHERE state = 'posted' AND account_id = ?`, [
        a.accountId,
      ]),
    );
    await tamper(dbPath, [`UPDATE holds SET state = 'pending', resolved_at = NULL WHERE id = ${hold}`]);
    const { code, report } = await cliAudit(dbPath);
    expect(code).toBe(1);
    expect(violated(report)).toEqual({ holds_match_transfers: [String(hold)] });
  });

  it('a usage record charging 1 micro-credit more than the ledger posted: usage_matches_ledger fails', async () => {
    const { dbPath, a } = await usedWallet();
    await tamper(dbPath, [
      `UPDATE usage_records SET charged = charged + 1 WHERE id = (SELECT min(id) FROM usage_records
         WHERE outcome = 'charged' AND account_id = '${a.accountId}')`,
    ]);
    const { code, report } = await cliAudit(dbPath);
    expect(code).toBe(1);
    expect(violated(report)).toEqual({ usage_matches_ledger: [a.accountId] });
  });
});

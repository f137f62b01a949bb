import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';
import type { CountryCode } from '../../src/contract/countries.ts';
import type { MeteredCall, MeteredOutcome, Principal } from '../../src/wallet/types.ts';
import { openWallet, type Wallet, type WalletOptions } from '../../src/wallet/wallet.ts';

/** A clock tests move by hand; every wallet timestamp comes from it. */
export class TestClock {
  constructor(public ms = Date.UTC(2026, 0, 5, 9, 0, 0)) {}
  readonly now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

const dirs: string[] = [];
const wallets: Wallet[] = [];

afterEach(() => {
  for (const w of wallets.splice(0)) w.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-wallet-test-'));
  dirs.push(dir);
  return dir;
}

/** A real wallet.db in a fresh temp folder, closed and removed after the test. No periodic sweeper. */
export function testWallet(opts: Partial<WalletOptions> = {}): { wallet: Wallet; dbPath: string } {
  const dbPath = opts.dbPath ?? path.join(tempDir(), 'wallet.db');
  const wallet = openWallet({ sweepIntervalMs: 0, ...opts, dbPath });
  wallets.push(wallet);
  return { wallet, dbPath };
}

/** Opens a wallet the test closes itself (crash and reopen scenarios). */
export function untrackedWallet(opts: WalletOptions): Wallet {
  return openWallet({ sweepIntervalMs: 0, ...opts });
}

export function principalFor(wallet: Wallet, key: string): Principal {
  return wallet.authenticator.authenticate(`Bearer ${key}`);
}

export function call(principal: Principal, over: Partial<MeteredCall> = {}): MeteredCall {
  return {
    principal,
    channel: 'rest',
    operation: 'search',
    country: 'EE' as CountryCode,
    reserveRows: 50,
    fingerprint: 'country=EE&page_size=50',
    ...over,
  };
}

export function rows<T = null>(n: number, result: T = null as T): () => Promise<MeteredOutcome<T>> {
  return async () => ({ result, chargeableRows: n, rowsReturned: n });
}

/** A promise settled from outside, to hold a metered call open between reserve and settle. */
export function deferred<T>(): {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
} {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Raw read-only look at the file, for assertions about what is (not) stored. */
export function rawCount(dbPath: string, sql: string): number {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(sql).pluck().get() as number) ?? 0;
  } finally {
    db.close();
  }
}

export function ledgerEntryCount(dbPath: string): { transfers: number; holds: number } {
  return {
    transfers: rawCount(dbPath, `SELECT count(*) FROM transfers WHERE kind <> 'grant' AND kind <> 'expire'`),
    holds: rawCount(dbPath, 'SELECT count(*) FROM holds'),
  };
}

export function expectAuditClean(wallet: Wallet): void {
  const audit = wallet.audit();
  const bad = audit.accounts.filter((a) => !a.conserved);
  if (
    bad.length ||
    audit.lotMismatches.length ||
    audit.holdMismatches.length ||
    audit.usageMismatches.length
  ) {
    throw new Error(`ledger audit failed: ${JSON.stringify(audit)}`);
  }
}

export const micro = (credits: number): number => Math.round(credits * 1_000_000);

/** The pid of a process that has certainly exited, for simulating a wallet process that died. */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('could not spawn');
  return child.pid;
}

/** Marks every registered wallet process in the file as a dead one, as if it had been SIGKILLed. */
export function killAllInstances(dbPath: string): void {
  const db = new Database(dbPath);
  try {
    db.prepare('UPDATE wallet_instances SET pid = ?').run(deadPid());
  } finally {
    db.close();
  }
}

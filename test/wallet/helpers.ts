import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll } from 'vitest';
import type { CountryCode } from '../../src/contract/countries.ts';
import type { MeteredCall, MeteredOutcome, Principal } from '../../src/wallet/types.ts';
import { openWallet, type Wallet, type WalletOptions } from '../../src/wallet/wallet.ts';
import { freshPgLocation, rawExec, rawValue, type Backend } from './backends.ts';

export { WALLET_BACKENDS, type Backend } from './backends.ts';

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

afterEach(async () => {
  for (const w of wallets.splice(0)) await w.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

let backend: Backend = 'sqlite';

/** Inside `describe.each(WALLET_BACKENDS)`: the wallets this block's tests open use that backend. */
export function useBackend(b: Backend): void {
  beforeAll(() => {
    backend = b;
  });
}

export function currentBackend(): Backend {
  return backend;
}

/** Where a fresh, empty wallet of the current backend lives: a new SQLite file or a new PostgreSQL schema. */
export async function freshLocation(): Promise<string> {
  return backend === 'postgres' ? freshPgLocation() : path.join(tempDir(), 'wallet.db');
}

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-wallet-test-'));
  dirs.push(dir);
  return dir;
}

/**
 * A real wallet on the current backend (a wallet.db in a fresh temp folder, or a fresh PostgreSQL schema),
 * closed after the test. No periodic sweeper. `dbPath` is its location: a file path or a postgres:// URL,
 * which the raw helpers below and openWallet({dbPath}) both accept.
 */
export async function testWallet(
  opts: Partial<WalletOptions> = {},
): Promise<{ wallet: Wallet; dbPath: string }> {
  const dbPath = opts.dbPath ?? (await freshLocation());
  const wallet = await openWallet({ sweepIntervalMs: 0, ...opts, dbPath });
  wallets.push(wallet);
  return { wallet, dbPath };
}

/** Opens a wallet the test closes itself (crash and reopen scenarios). */
export function untrackedWallet(opts: WalletOptions): Promise<Wallet> {
  return openWallet({ sweepIntervalMs: 0, ...opts });
}

export function principalFor(wallet: Wallet, key: string): Promise<Principal> {
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

/** Raw look at the store, for assertions about what is (not) stored. */
export async function rawCount(dbPath: string, sql: string): Promise<number> {
  return Number((await rawValue(dbPath, sql)) ?? 0);
}

export async function ledgerEntryCount(dbPath: string): Promise<{ transfers: number; holds: number }> {
  return {
    transfers: await rawCount(
      dbPath,
      `SELECT count(*) FROM transfers WHERE kind <> 'grant' AND kind <> 'expire'`,
    ),
    holds: await rawCount(dbPath, 'SELECT count(*) FROM holds'),
  };
}

export async function expectAuditClean(wallet: Wallet): Promise<void> {
  const audit = await wallet.audit();
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

/** Marks every registered wallet process in the store as a dead one, as if it had been SIGKILLed. */
export async function killAllInstances(dbPath: string): Promise<void> {
  await rawExec(dbPath, 'UPDATE wallet_instances SET pid = ?', [deadPid()]);
}

/**
 * Wraps a `run` so the test can wait for the reserve: runMetered calls `run` only after the reserve has
 * committed (on PostgreSQL on another connection, so "right after runMetered returned" is not enough).
 */
export function signalled<T>(run: () => Promise<T>): { run: () => Promise<T>; reserved: Promise<void> } {
  const reserved = deferred<void>();
  return {
    run: () => {
      reserved.resolve();
      return run();
    },
    reserved: reserved.promise,
  };
}

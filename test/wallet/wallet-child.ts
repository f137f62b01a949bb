/**
 * A separate process driving a real wallet.db, for the cross-process and crash tests. It calls
 * runMetered directly (the HTTP app needs a generated world snapshot to return rows; see docs/wallet.md).
 *
 *   node --import tsx test/wallet/wallet-child.ts '<json options>'
 *
 * Every settled call is reported on stdout as one line *after* its settle commit; stdout is a pipe, and
 * pipe writes are synchronous in Node on Linux, so a line that was written survives a SIGKILL. The parent
 * can therefore check "reported <= charged in the ledger <= reported + what was in flight".
 */
import { isInsufficientCreditsError } from '../../src/wallet/errors.ts';
import type { MeteredCall, Principal } from '../../src/wallet/types.ts';
import { openWallet } from '../../src/wallet/wallet.ts';

interface ChildOptions {
  dbPath: string;
  keys: string[];
  mode: 'burst' | 'loop';
  /** burst: total calls; loop: ignored (runs until killed). */
  calls: number;
  concurrency: number;
  maxRows: number;
}

const opts = JSON.parse(process.argv[2] ?? '{}') as ChildOptions;
const wallet = await openWallet({ dbPath: opts.dbPath, sweepIntervalMs: 0 });
const principals: Principal[] = await Promise.all(
  opts.keys.map((k) => wallet.authenticator.authenticate(`Bearer ${k}`)),
);
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

let seq = 0;
let charged = 0;
let ok = 0;
let rejected = 0;
let unjustified = 0;

async function one(): Promise<void> {
  const n = seq++;
  const principal = pick(principals);
  const reserveRows = 1 + Math.floor(Math.random() * opts.maxRows);
  const c: MeteredCall = {
    principal,
    channel: pick(['rest', 'mcp'] as const),
    operation: 'search',
    country: pick(['EE', 'LV', 'SE'] as const),
    reserveRows,
    fingerprint: `n=${n}`,
    // Some calls carry an Idempotency-Key and are retried once after they succeed.
    ...(n % 4 === 0 && { idempotencyKey: `${process.pid}-${n}` }),
  };
  const fail = Math.random() < 0.1;
  const rows = Math.floor(Math.random() * (reserveRows + 1));
  try {
    const res = await wallet.metering.runMetered(c, async () => {
      await sleep(Math.random() * 4);
      if (fail) throw new Error('backend unavailable');
      return { result: n, chargeableRows: rows, rowsReturned: rows };
    });
    const micro = Math.round(res.meta.credits_charged * 1e6);
    charged += micro;
    ok++;
    say(`ok ${micro}`);
    if (c.idempotencyKey) {
      const again = await wallet.metering.runMetered(c, async () => {
        throw new Error('a replay must not run');
      });
      if (JSON.stringify(again) !== JSON.stringify(res)) say('replay-mismatch');
    }
  } catch (err) {
    if (isInsufficientCreditsError(err)) {
      rejected++;
      if (!(err.balanceMicro < err.neededMicro)) unjustified++;
      say(`402 ${err.balanceMicro} ${err.neededMicro}`);
    } else if (!(err instanceof Error && err.message === 'backend unavailable')) {
      say(`error ${String(err)}`);
    }
  }
}

async function worker(): Promise<void> {
  while (opts.mode === 'loop' || seq < opts.calls) await one();
}

say('ready');
await Promise.all(Array.from({ length: opts.concurrency }, worker));
say(`done ${JSON.stringify({ charged, ok, rejected, unjustified })}`);
await wallet.close();

/**
 * Measures what metering adds to a request: one runMetered call whose `run` does nothing, i.e. the reserve
 * commit plus the settle commit (plus the usage row), against a real wallet.db with synchronous=FULL.
 *
 *   npx tsx test/wallet/measure-latency.ts [dir] [iterations]
 *
 * dir defaults to a fresh folder under the OS temp dir; pass ./data/.tmp or similar to measure the disk the
 * server will use. Prints JSON; docs/wallet.md records the figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openWallet } from '../../src/wallet/wallet.ts';
import type { MeteredCall } from '../../src/wallet/types.ts';

const baseDir = process.argv[2] ?? os.tmpdir();
const iterations = Number(process.argv[3] ?? 2000);
fs.mkdirSync(baseDir, { recursive: true });
const dir = fs.mkdtempSync(path.join(baseDir, 'regdata-latency-'));
const wallet = await openWallet({ dbPath: path.join(dir, 'wallet.db'), sweepIntervalMs: 0 });
try {
  const created = await wallet.createKey({
    email: 'bench@example.com',
    kind: 'standard',
    plan: 'payg',
    credits: 1_000_000,
  });
  const principal = await wallet.authenticator.authenticate(`Bearer ${created.key}`);
  const call = (i: number): MeteredCall => ({
    principal,
    channel: 'rest',
    operation: 'search',
    country: 'EE',
    reserveRows: 50,
    fingerprint: `q=${i}`,
  });
  const run = async () => ({ result: null, chargeableRows: 17, rowsReturned: 17 });

  for (let i = 0; i < 200; i++) await wallet.metering.runMetered(call(i), run);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await wallet.metering.runMetered(call(i), run);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  const authSamples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await wallet.authenticator.authenticate(`Bearer ${created.key}`);
    authSamples.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p: number) => Number(s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(1));
    return {
      mean_us: Number((xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1)),
      p50_us: q(0.5),
      p99_us: q(0.99),
      max_us: q(1),
    };
  };
  process.stdout.write(
    `${JSON.stringify(
      {
        dir: baseDir,
        iterations,
        reserve_plus_settle: stats(samples),
        authenticate: stats(authSamples),
        node: process.version,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await wallet.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

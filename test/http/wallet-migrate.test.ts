import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { COUNTRIES } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { walletOptions } from '../../src/wallet/from-config.ts';
import { openWallet } from '../../src/wallet/wallet.ts';
import { freshPgLocation } from '../wallet/backends.ts';

/*
 * Issue 18 item 6, end to end: an app on a SQLite wallet charges a search; `regdata wallet migrate` (the
 * real CLI) moves the wallet to PostgreSQL; an app opened from REGDATA_WALLET_URL=postgres://… then charges
 * the next search from the migrated balance, at the spec's row price.
 */

const BIN = fileURLToPath(new URL('../../bin/regdata.mjs', import.meta.url));
const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-migrate-app-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function search(walletUrl: string, key: string | null) {
  const config = loadConfig({ REGDATA_DATA_DIR: dir, REGDATA_WALLET_URL: walletUrl });
  const engine = await Engine.open(new SnapshotStore(inject('testDataDir')), { connections: 1 });
  const wallet = await openWallet(walletOptions(config, { sweepIntervalMs: 0 }));
  const app = await buildApp({ engine, wallet, logger: false });
  try {
    const secret =
      key ??
      (await wallet.createKey({ email: 'm@test.local', kind: 'standard', plan: 'payg', credits: 50 })).key;
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/data/companies?country=EE&page_size=7',
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{
      data: { items: unknown[] };
      meta: { credits_charged: number; credit_balance: number };
    }>();
    return { key: secret, rows: body.data.items.length, meta: body.meta };
  } finally {
    await app.close();
    engine.close();
    await wallet.close();
  }
}

describe.skipIf(!inject('walletPgUrl'))('an app on a wallet moved to PostgreSQL', () => {
  it('charges the next search from the migrated balance', async () => {
    const sqlite = `sqlite:${path.join(dir, 'wallet.db')}`;
    const first = await search(sqlite, null);
    const price = COUNTRIES.EE.defaultRowPrice;
    expect(first.rows).toBe(7);
    expect(first.meta.credit_balance).toBeCloseTo(50 - 7 * price, 9);

    const url = await freshPgLocation();
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], REGDATA_DATA_DIR: dir };
    const migrated = await run(process.execPath, [BIN, 'wallet', 'migrate', '--to', url], { env });
    expect(migrated.stderr).toContain('audits equal');

    const second = await search(url, first.key);
    expect(second.meta.credits_charged).toBeCloseTo(second.rows * price, 9);
    expect(second.meta.credit_balance).toBeCloseTo(50 - (first.rows + second.rows) * price, 9);
  });
});

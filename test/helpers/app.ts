import { Deliverer } from '../../src/webhooks/deliverer.ts';
import { Endpoints } from '../../src/webhooks/endpoints.ts';
import { Watchlists } from '../../src/watchlists/watchlists.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { openWallet, type Wallet } from '../../src/wallet/wallet.ts';

/**
 * A real app on a real snapshot: the engine loads the data folder's live snapshot into DuckDB, the wallet is
 * a real SQLite ledger in a temp folder. Nothing of ours is mocked.
 */
export interface TestApp {
  app: FastifyInstance;
  engine: Engine;
  wallet: Wallet;
  /** Admin key: never charged, never rate-limited. */
  adminKey: string;
  get(
    url: string,
    opts?: { key?: string | null; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function buildTestApp(
  dataDir: string,
  opts: { rateLimit?: { burst: number; requestsPerMinute: number }; watchlists?: boolean } = {},
): Promise<TestApp> {
  const walletDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-wallet-'));
  const engine = await Engine.open(new SnapshotStore(dataDir), { connections: 2 });
  const wallet = await openWallet({
    dbPath: path.join(walletDir, 'wallet.db'),
    sweepIntervalMs: 0,
    ...(opts.rateLimit && { rateLimit: opts.rateLimit }),
  });
  const app = await buildApp({
    engine,
    wallet,
    logger: false,
    ...(opts.watchlists !== false && { watchlists: new Watchlists(wallet.store, Date.now) }),
    // Never started here: a test that delivers drives its own Deliverer (test/webhooks).
    webhooks: {
      endpoints: new Endpoints(wallet.store, Date.now, { allowPrivate: false }),
      deliverer: new Deliverer({
        store: wallet.store,
        engine,
        metering: wallet.metering,
        principalOf: (accountId) => wallet.appPrincipal(accountId),
        policy: { allowPrivate: false },
        clock: Date.now,
      }),
    },
  });
  await app.ready();
  const { key: adminKey } = await wallet.createKey({ email: 'admin@test.local', kind: 'admin' });
  return {
    app,
    engine,
    wallet,
    adminKey,
    get(url, { key = adminKey, headers = {} } = {}) {
      return app.inject({
        method: 'GET',
        url,
        headers: { ...(key !== null && { authorization: `Bearer ${key}` }), ...headers },
      });
    },
    async close() {
      await app.close();
      engine.close();
      await wallet.close();
      fs.rmSync(walletDir, { recursive: true, force: true });
    },
  };
}

/** Query string with repeated parameters for arrays (spec 4.3). */
export function qs(
  params: Record<string, string | number | boolean | (string | number)[] | undefined>,
): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) sp.append(k, String(item));
  }
  return sp.toString();
}

/** An empty data folder: no snapshot promoted, so data endpoints must answer 502. */
export function emptyDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-empty-'));
}

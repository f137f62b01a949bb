import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Engine } from '../src/engine/engine.ts';
import { openWallet } from '../src/wallet/wallet.ts';
import { Deliverer } from '../src/webhooks/deliverer.ts';
import { Endpoints } from '../src/webhooks/endpoints.ts';

/*
 * Issue 31's delivery figure: signed webhook deliveries per second from one server process to a loopback
 * receiver (its own process, answering 204), through the whole path of each attempt: the claim, the
 * reserve, the URL check, the signed POST, the charge mark and the settle. The queue rows are inserted
 * directly (what enqueue writes), so the figure is the delivery path's alone.
 *
 *   node --import tsx bench/webhook-throughput.ts [deliveries=5000] [accounts=50] [wallet=sqlite|<postgres url>]
 */
const [n = '5000', a = '50', where = 'sqlite'] = process.argv.slice(2);
const N = Number(n);
const A = Number(a);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-hooks-bench-'));
const receiver = spawn(
  process.execPath,
  [
    '-e',
    `require('http').createServer((q,r)=>{q.resume();q.on('end',()=>r.writeHead(204).end())}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const port = await new Promise<number>((resolve) =>
  receiver.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))),
);
const wallet = await openWallet({
  ...(where === 'sqlite' ? { dbPath: path.join(tmp, 'wallet.db') } : { url: where }),
  sweepIntervalMs: 0,
  prices: { EE: 0.05 },
});
const endpoints = new Endpoints(wallet.store, Date.now, { allowPrivate: true });
const now = Date.now();
const accounts: { accountId: string; endpointId: string }[] = [];
for (let i = 0; i < A; i++) {
  const { accountId } = await wallet.createKey({
    email: `b${i}@bench.test`,
    kind: 'standard',
    plan: 'payg',
    credits: 1000,
  });
  const e = await endpoints.create(accountId, `http://127.0.0.1:${port}/hook`);
  accounts.push({ accountId, endpointId: e.id });
}
const payload = JSON.stringify({
  type: 'watchlist.event',
  timestamp: new Date(now).toISOString(),
  data: {
    id: 'x',
    country: 'EE',
    registrikood: '10000000',
    change: 'changed',
    fields: ['arinimi'],
    diff: [{ field: 'arinimi', before: 'A'.repeat(40), after: 'B'.repeat(40) }],
    watchlists: [{ id: 'wl_x', membership: 'member' }],
    snapshot_id: '20261201T030000Z',
    as_of: '2026-12-01',
  },
});
await wallet.store.tx(async (q) => {
  for (let i = 0; i < N; i++) {
    const { accountId, endpointId } = accounts[i % A]!;
    await q.run(
      `INSERT INTO webhook_deliveries (endpoint_id, account_id, event_id, country, payload, created_at, expires_at, next_at)
       VALUES (?, ?, ?, 'EE', ?, ?, ?, ?)`,
      [
        endpointId,
        accountId,
        `20261201T030000Z.EE.${i.toString(16).padStart(16, '0')}`,
        payload,
        now,
        now + 86_400_000,
        now,
      ],
    );
  }
});
const deliverer = new Deliverer({
  store: wallet.store,
  // runOnce never reads snapshots (only enqueue does), and this bench inserts the queue itself.
  engine: undefined as unknown as Engine,
  metering: wallet.metering,
  principalOf: (accountId) => wallet.appPrincipal(accountId),
  policy: { allowPrivate: true },
  clock: Date.now,
});
const started = performance.now();
let sent = 0;
for (;;) {
  const k = await deliverer.runOnce(50);
  if (k === 0) break;
  sent += k;
}
const seconds = (performance.now() - started) / 1000;
const charged = await wallet.store.get<{ n: number }>('SELECT count(*) AS n FROM event_charges');
console.log(
  JSON.stringify({
    wallet: where === 'sqlite' ? 'sqlite' : 'postgres',
    deliveries: sent,
    charged: Number(charged?.n),
    seconds: Number(seconds.toFixed(2)),
    perSecond: Math.round(sent / seconds),
  }),
);
await wallet.close();
receiver.kill();
fs.rmSync(tmp, { recursive: true, force: true });

/**
 * Times `POST /reset` over real HTTP for addresses with a verified account and for unknown ones, alternating,
 * against the real server (startServer) with its mail worker running (file mailer, so the known requests'
 * mail is really written while the next requests arrive). Each request has its own address and its own
 * client (X-Forwarded-For through a trusted proxy), so no throttle answers instead.
 *
 *   npx tsx test/identity/measure-reset-timing.ts [requests per kind] [postgres://… wallet URL]
 *
 * Prints JSON: status counts and latency percentiles (ms) per kind. docs/dashboard.md records the figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { Identity } from '../../src/identity/identity.ts';
import { startServer } from '../../src/server.ts';

const n = Number(process.argv[2] ?? 300);
const walletUrl = process.argv[3];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-reset-timing-'));
const server = await startServer(
  loadConfig({
    PORT: '0',
    REGDATA_DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
    REGDATA_TRUST_PROXY: '127.0.0.1',
    REGDATA_MAILER: 'file',
    ...(walletUrl && { REGDATA_WALLET_URL: walletUrl }),
  }),
  { handleSignals: false },
);
try {
  const identity = new Identity({ store: server.wallet.store, mailLimits: { perAddress: 1_000_000 } });
  const tag = Date.now().toString(36);
  for (let i = 0; i < n; i++) {
    const { verifyToken } = await identity.signUp(`known${i}-${tag}@test.local`, 'a fine password', 'setup');
    await identity.verifyEmail(verifyToken!);
  }
  // The set-up's verification mail is sent before the clock starts.
  const queued = async () =>
    Number((await server.wallet.store.get<{ n: number }>('SELECT count(*) AS n FROM mail_queue'))?.n);
  while ((await queued()) > 0) await new Promise((r) => setTimeout(r, 50));
  const page = await fetch(`${server.url}/reset`);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(await page.text())![1]!;

  const post = async (email: string, client: number) => {
    const started = process.hrtime.bigint();
    const res = await fetch(`${server.url}/reset`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie,
        'x-forwarded-for': `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`,
      },
      body: new URLSearchParams({ email, _csrf: csrf }).toString(),
    });
    const body = await res.text();
    return { ms: Number(process.hrtime.bigint() - started) / 1e6, status: res.status, bytes: body.length };
  };

  const known: { ms: number; status: number; bytes: number }[] = [];
  const unknown: typeof known = [];
  // Warm-up, then the two kinds interleaved so drift (disk, other load) falls on both alike.
  for (let i = 0; i < 20; i++) await post(`warm${i}-${tag}@test.local`, 60_000 + i);
  for (let i = 0; i < n; i++) {
    known.push(await post(`known${i}-${tag}@test.local`, 2 * i));
    unknown.push(await post(`nobody${i}-${tag}@test.local`, 2 * i + 1));
  }
  const summary = (xs: typeof known) => {
    const ms = xs.map((x) => x.ms).sort((a, b) => a - b);
    const at = (p: number) => Number(ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(3));
    return {
      statuses: [...new Set(xs.map((x) => x.status))],
      body_bytes: [...new Set(xs.map((x) => x.bytes))],
      mean: Number((ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(3)),
      p10: at(0.1),
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
    };
  };
  process.stdout.write(
    `${JSON.stringify(
      {
        backend: server.wallet.store.dialect,
        requests_per_kind: n,
        known: summary(known),
        unknown: summary(unknown),
        // The known requests' mail (one file each, plus the set-up's and warm-up's none), once sent.
        reset_mails_written: fs.readdirSync(path.join(dir, 'outgoing-mail')).length - n,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

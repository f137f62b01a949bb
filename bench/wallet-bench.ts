/*
 * Issue 18 item 5: what the wallet backend costs a metered call, how throughput grows with API replicas on
 * this machine, and how many metered writes (reserve + settle) PostgreSQL sustains here.
 *
 *   npx tsx bench/wallet-bench.ts [--requests 2000] [--seconds 20] [--concurrency 8] [--out <file>]
 *
 * It starts its own PostgreSQL (scripts/pg-test-server.sh with REGDATA_PG_DURABLE=1: fsync and synchronous
 * commit on, as a wallet must run) and its own small EE world, so it needs nothing else. The figures only
 * mean something on a quiet machine; the load generator shares the two cores with the servers and says so.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import type { Histogram } from 'hdr-histogram-js';
import pg from 'pg';
import { buildWorldSnapshot } from '../ingest/world/index.ts';
import type { Principal } from '../src/wallet/types.ts';
import { openWallet } from '../src/wallet/wallet.ts';
import { apiEnv, freePort, spawnServer, type ChildServer } from './api-server.ts';
import { latencyHistogram, pct } from './stats.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'bin', 'regdata.mjs');
const SELF = fileURLToPath(import.meta.url);
const run = promisify(execFile);

interface Latency {
  n: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  rps: number;
}

/** CPU seconds (user + system) a process has used so far, from /proc (USER_HZ is 100 on Linux); 0 when gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Busy share of all cores between two readings of /proc/stat. */
function cpuTotals(): { busy: number; all: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (line[3] ?? 0) + (line[4] ?? 0);
  const all = line.reduce((a, b) => a + b, 0);
  return { busy: all - idle, all };
}

/** CPU seconds of every postgres process of the cluster whose data folder is `pgData`. */
function postgresCpuSeconds(pgData: string): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const exe = fs.readlinkSync(`/proc/${pid}/exe`);
      if (!exe.includes('postgres')) continue;
      // Children of the postmaster show their role, not the data folder: find them through the parent.
      const ppid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      const parentCmd = fs.existsSync(`/proc/${ppid}/cmdline`)
        ? fs.readFileSync(`/proc/${ppid}/cmdline`, 'utf8')
        : '';
      if (cmd.includes(pgData)) {
        // The postmaster: its own time plus that of its children that have exited (cutime, cstime), so
        // backends of connections closed between two readings are still counted.
        const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        total += cpuSeconds(Number(pid)) + (Number(f[13]) + Number(f[14])) / 100;
      } else if (parentCmd.includes(pgData)) {
        total += cpuSeconds(Number(pid));
      }
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

function figures(h: Histogram, errors: number, seconds: number): Latency {
  const ms = (p: number) => Math.round(pct(h, p)) / 1000;
  return {
    n: h.totalCount,
    errors,
    p50: ms(50),
    p95: ms(95),
    p99: ms(99),
    rps: Math.round((h.totalCount / seconds) * 10) / 10,
  };
}

/** Closed-loop load: `concurrency` clients, each sending `next()` until `stop()` says so. */
async function load(
  concurrency: number,
  next: (i: number) => { url: string; key: string } | null,
): Promise<{ latency: Latency; seconds: number }> {
  const h = latencyHistogram();
  let errors = 0;
  let sent = 0;
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const req = next(sent++);
      if (!req) return;
      const t0 = performance.now();
      try {
        const res = await fetch(req.url, { headers: { authorization: `Bearer ${req.key}` } });
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
      } catch {
        errors++;
      }
      h.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { latency: figures(h, errors, seconds), seconds };
}

async function createKey(walletUrl: string, dataDir: string, email: string): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [
      CLI,
      'keys',
      'create',
      '--email',
      email,
      '--kind',
      'standard',
      '--plan',
      'payg',
      '--credits',
      '10000000',
      '--json',
    ],
    { cwd: ROOT, env: { ...process.env, ...apiEnv(dataDir), REGDATA_WALLET_URL: walletUrl } },
  );
  return (JSON.parse(stdout) as { key: string }).key;
}

async function startServer(dataDir: string, walletUrl: string, logFile: string): Promise<ChildServer> {
  return spawnServer({
    args: [CLI, 'serve'],
    env: { ...apiEnv(dataDir), REGDATA_WALLET_URL: walletUrl, REGDATA_SNAPSHOT_POLL_MS: '0' },
    port: await freePort(),
    logFile,
    readyTimeoutMs: 10 * 60_000,
  });
}

/**
 * The ledger ceiling: `--worker` processes, each on its own accounts, doing reserve + settle pairs through
 * the real wallet (no HTTP, no engine) for `seconds`. Prints the pairs done as JSON on stdout.
 */
async function workerMain(
  url: string,
  seconds: number,
  accounts: number,
  tag: string,
  sharedKey: string | null,
) {
  const wallet = await openWallet({ url, poolSize: 4, sweepIntervalMs: 0 });
  // The shared account's key is made once by the parent: four workers creating one e-mail would race.
  const keys: string[] = sharedKey ? [sharedKey] : [];
  for (let i = 0; keys.length < accounts && !sharedKey; i++) {
    const email = `ceiling-${tag}-${i}@bench.local`;
    keys.push((await wallet.createKey({ email, kind: 'standard', plan: 'payg', credits: 10_000_000 })).key);
  }
  const principals: Principal[] = [];
  for (const k of keys) principals.push(await wallet.authenticator.authenticate(`Bearer ${k}`));
  const deadline = performance.now() + seconds * 1000;
  let pairs = 0;
  const client = async (p: Principal) => {
    while (performance.now() < deadline) {
      await wallet.metering.runMetered(
        {
          principal: p,
          channel: 'rest',
          operation: 'detail',
          country: 'EE',
          reserveRows: 1,
          fingerprint: 'bench',
        },
        async () => ({ result: null, chargeableRows: 1, rowsReturned: 1 }),
      );
      pairs++;
    }
  };
  // Four clients per process keep the pool busy; on one shared account they queue on its lot rows.
  await Promise.all(Array.from({ length: 4 }, (_, i) => client(principals[i % principals.length]!)));
  await wallet.close();
  process.stdout.write(JSON.stringify({ pairs }) + '\n');
}

async function ceiling(
  url: string,
  processes: number,
  seconds: number,
  sameAccount: boolean,
  pgData: string,
) {
  let shared = '-';
  if (sameAccount) {
    const wallet = await openWallet({ url, poolSize: 1, sweepIntervalMs: 0 });
    const email = `ceiling-shared-${Date.now()}@bench.local`;
    shared = (await wallet.createKey({ email, kind: 'standard', plan: 'payg', credits: 10_000_000 })).key;
    await wallet.close();
  }
  const cpu0 = cpuTotals();
  const pg0 = postgresCpuSeconds(pgData);
  const results = await Promise.all(
    Array.from(
      { length: processes },
      (_, i) =>
        new Promise<number>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [
              '--import',
              'tsx',
              SELF,
              '--worker',
              url,
              String(seconds),
              String(4),
              `${processes}-${i}-${Date.now()}`,
              shared,
            ],
            { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
          );
          let out = '';
          child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
          child.on('close', (code) => {
            if (code !== 0) return reject(new Error(`ceiling worker exited ${code}`));
            resolve((JSON.parse(out.trim().split('\n').pop()!) as { pairs: number }).pairs);
          });
        }),
    ),
  );
  const cpu1 = cpuTotals();
  const pairs = results.reduce((a, b) => a + b, 0);
  return {
    processes,
    clients: processes * 4,
    same_account: sameAccount,
    pairs_per_second: Math.round(pairs / seconds),
    // A pair is two committed transactions (reserve, settle): the metered writes the ledger takes.
    commits_per_second: Math.round((2 * pairs) / seconds),
    machine_cpu_busy: Math.round(((cpu1.busy - cpu0.busy) / (cpu1.all - cpu0.all)) * 100) / 100,
    postgres_cpu_seconds: Math.round((postgresCpuSeconds(pgData) - pg0) * 10) / 10,
  };
}

async function main() {
  if (process.argv[2] === '--worker') {
    const [, , , url, seconds, accounts, tag, same] = process.argv;
    return workerMain(url!, Number(seconds), Number(accounts), tag!, same && same !== '-' ? same : null);
  }
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '2000' },
      seconds: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '8' },
      out: { type: 'string' },
    },
  });
  const requests = Number(values.requests);
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const work = fs.mkdtempSync(path.join(ROOT, '.tmp', 'wallet-bench-'));
  // Under the system temp folder: the postgres user that runs the server cannot enter the checkout's .tmp.
  const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-wallet-bench-pg-'));
  const log = (s: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${s}\n`);

  log('starting a durable PostgreSQL ...');
  const base = (
    await run('bash', [path.join(ROOT, 'scripts', 'pg-test-server.sh'), 'start', pgDir], {
      env: { ...process.env, REGDATA_PG_DURABLE: '1' },
    })
  ).stdout
    .trim()
    .split('\n')
    .pop()!;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const version = String((await admin.query('SHOW server_version')).rows[0].server_version);
  const pgSettings = Object.fromEntries(
    (
      await admin.query(
        `SELECT name, setting FROM pg_settings WHERE name IN ('fsync','synchronous_commit','full_page_writes','shared_buffers')`,
      )
    ).rows.map((r: { name: string; setting: string }) => [r.name, r.setting]),
  );
  const servers: ChildServer[] = [];
  try {
    const dataDir = path.join(work, 'data');
    log('building a small EE world ...');
    await buildWorldSnapshot({ dataDir, scale: 0.01, seed: 1, countries: ['EE'], label: 'wallet-bench' });
    const sqliteUrl = `sqlite:${path.join(work, 'wallet.db')}`;
    const dbUrl = (db: string) => base.replace(/\/postgres$/, `/${db}`);
    for (const db of ['wallet_http', 'wallet_ceiling']) await admin.query(`CREATE DATABASE ${db}`);

    // 1. One server per backend, one client, a cheap metered call (detail) and a free one (countries).
    const overhead: Record<
      string,
      {
        detail: Latency;
        countries: Latency;
        server_cpu_ms_per_detail: number;
        /** PostgreSQL only: transactions committed per metered call (each one waits for its WAL flush). */
        commits_per_detail?: number;
      }
    > = {};
    let codes: string[] = [];
    for (const [name, url] of [
      ['sqlite', sqliteUrl],
      ['postgres', dbUrl('wallet_http')],
    ] as const) {
      const key = await createKey(url, dataDir, `overhead-${name}@bench.local`);
      const server = await startServer(dataDir, url, path.join(work, `server-${name}.log`));
      servers.push(server);
      if (codes.length === 0) {
        const res = await fetch(`${server.url}/api/v1/data/companies?country=EE&page_size=500`, {
          headers: { authorization: `Bearer ${key}` },
        });
        codes = ((await res.json()) as { data: { items: { registrikood: string }[] } }).data.items.map(
          (i) => i.registrikood,
        );
      }
      const detail = (i: number) => ({
        url: `${server.url}/api/v1/data/companies/${codes[i % codes.length]}?country=EE`,
        key,
      });
      await load(1, (i) => (i < 300 ? detail(i) : null));
      // PostgreSQL publishes its counters within a second of a transaction's end.
      const commits = async () => {
        if (name !== 'postgres') return 0;
        await new Promise((r) => setTimeout(r, 1500));
        const r = await admin.query(
          `SELECT xact_commit::float8 AS n FROM pg_stat_database WHERE datname = 'wallet_http'`,
        );
        return Number((r.rows[0] as { n: number }).n);
      };
      const commits0 = await commits();
      const cpu0 = cpuSeconds(server.pid);
      const d = await load(1, (i) => (i < requests ? detail(i) : null));
      const cpuMs = ((cpuSeconds(server.pid) - cpu0) * 1000) / requests;
      const commitsPerCall = ((await commits()) - commits0) / requests;
      const c = await load(1, (i) =>
        i < requests ? { url: `${server.url}/api/v1/data/countries`, key } : null,
      );
      overhead[name] = {
        detail: d.latency,
        countries: c.latency,
        server_cpu_ms_per_detail: Math.round(cpuMs * 100) / 100,
        ...(name === 'postgres' ? { commits_per_detail: Math.round(commitsPerCall * 100) / 100 } : {}),
      };
      log(
        `${name}: detail p50 ${d.latency.p50} ms p99 ${d.latency.p99} ms; countries p50 ${c.latency.p50} ms`,
      );
      await server.stop();
      servers.pop();
    }

    // 2. 1, 2 and 3 replicas on the PostgreSQL wallet, the same total clients spread over them.
    const replicas = [];
    const keys = await Promise.all(
      [0, 1, 2, 3].map((i) => createKey(dbUrl('wallet_http'), dataDir, `replicas-${i}@bench.local`)),
    );
    for (let n = 1; n <= 3; n++) {
      while (servers.length < n) {
        servers.push(
          await startServer(dataDir, dbUrl('wallet_http'), path.join(work, `replica-${servers.length}.log`)),
        );
      }
      const live = servers.slice(0, n);
      const warmEnd = performance.now() + 3000;
      await load(concurrency, (i) =>
        performance.now() < warmEnd
          ? {
              url: `${live[i % n]!.url}/api/v1/data/companies/${codes[i % codes.length]}?country=EE`,
              key: keys[i % 4]!,
            }
          : null,
      );
      const cpu0 = cpuTotals();
      const srv0 = live.map((s) => cpuSeconds(s.pid));
      const pg0 = postgresCpuSeconds(pgDir);
      const self0 = process.cpuUsage();
      const end = performance.now() + seconds * 1000;
      const r = await load(concurrency, (i) =>
        performance.now() < end
          ? {
              url: `${live[i % n]!.url}/api/v1/data/companies/${codes[i % codes.length]}?country=EE`,
              key: keys[i % 4]!,
            }
          : null,
      );
      const cpu1 = cpuTotals();
      const self1 = process.cpuUsage(self0);
      replicas.push({
        replicas: n,
        clients: concurrency,
        ...r.latency,
        machine_cpu_busy: Math.round(((cpu1.busy - cpu0.busy) / (cpu1.all - cpu0.all)) * 100) / 100,
        cpu_seconds: {
          servers: Math.round(live.reduce((a, s, i) => a + cpuSeconds(s.pid) - srv0[i]!, 0) * 10) / 10,
          postgres: Math.round((postgresCpuSeconds(pgDir) - pg0) * 10) / 10,
          load_generator: Math.round(((self1.user + self1.system) / 1e6) * 10) / 10,
        },
      });
      log(`${n} replica(s): ${r.latency.rps} req/s, p50 ${r.latency.p50} ms, p95 ${r.latency.p95} ms`);
    }
    for (const s of servers.splice(0)) await s.stop();

    // 3. The ledger alone: reserve + settle pairs from 1, 2 and 4 processes, own accounts, then one account.
    const ledger = [];
    for (const [procs, same] of [
      [1, false],
      [2, false],
      [4, false],
      [4, true],
    ] as const) {
      const r = await ceiling(dbUrl('wallet_ceiling'), procs, seconds, same, pgDir);
      ledger.push(r);
      log(`ledger: ${procs} process(es)${same ? ', one account' : ''}: ${r.pairs_per_second} pairs/s`);
    }

    const result = {
      at: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model,
        memory_gib: Math.round(os.totalmem() / 2 ** 30),
        load_before: os.loadavg(),
      },
      postgres: { version, settings: pgSettings },
      requests,
      seconds,
      overhead,
      replicas,
      ledger,
    };
    const out =
      values.out ?? path.join(ROOT, 'bench', 'results', `wallet-${result.at.replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    log(`written to ${path.relative(ROOT, out)}`);
  } finally {
    for (const s of servers) await s.stop();
    await admin.end();
    await run('bash', [path.join(ROOT, 'scripts', 'pg-test-server.sh'), 'stop', pgDir]);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'bin', 'regdata.mjs');

/** Memory of a process from /proc (Linux): resident now and its peak, in bytes; null elsewhere. */
export function processMemory(pid: number): { rss: number; peak: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 };
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used, in seconds, from /proc (Linux); null elsewhere. */
export function processCpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in ticks.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** The machine's CPU time since boot from /proc/stat, busy and total, in ticks; null elsewhere. */
export function machineCpuTicks(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user).
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - (v[3] ?? 0) - (v[4] ?? 0), total };
  } catch {
    return null;
  }
}

/** USER_HZ: Linux reports /proc CPU times in 1/100 s on every architecture Node runs on. */
const CLOCK_TICKS = 100;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface ChildServer {
  url: string;
  pid: number;
  /** Spawn to first healthy /healthz, in ms. */
  readyMs: number;
  stop(): Promise<void>;
}

/** Spawns a server process, sends its output to a log file, and waits until /healthz answers 200. */
export async function spawnServer(opts: {
  args: string[];
  env: NodeJS.ProcessEnv;
  port: number;
  logFile: string;
  readyTimeoutMs: number;
}): Promise<ChildServer> {
  const log = fs.openSync(opts.logFile, 'a');
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, opts.args, {
    cwd: ROOT,
    env: { ...process.env, ...opts.env, PORT: String(opts.port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  let exited: number | null = null;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = code ?? (signal ? 128 : 1);
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${opts.port}`;
  const stop = async () => {
    if (exited === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exit;
      clearTimeout(timer);
    }
  };
  for (;;) {
    if (exited !== null)
      throw new Error(`server exited with ${exited} before it was ready; see ${opts.logFile}`);
    if (performance.now() - started > opts.readyTimeoutMs) {
      await stop();
      throw new Error(`server not ready after ${opts.readyTimeoutMs} ms; see ${opts.logFile}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, pid: child.pid as number, readyMs: performance.now() - started, stop };
}

/** The `snapshot loaded` line of the server log: the engine's own load time. */
export function loggedLoadMs(logFile: string): number | null {
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('snapshot loaded')) continue;
    try {
      const ms = (JSON.parse(line) as { load_ms?: number }).load_ms;
      if (typeof ms === 'number') return ms;
    } catch {
      // not a JSON line
    }
  }
  return null;
}

/**
 * Production settings except the rate limit: the bench key sends thousands of requests a minute by design.
 * Metering stays on: every search, detail and history reserves and settles in the SQLite ledger.
 */
export function apiEnv(dataDir: string): NodeJS.ProcessEnv {
  return {
    REGDATA_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    REGDATA_RATE_LIMIT_PER_MINUTE: '100000000',
    REGDATA_RATE_LIMIT_BURST: '1000000',
  };
}

/** A standard pay-as-you-go key with real credits, made by the CLI into the run's wallet (README "Keys"). */
export async function createBenchKey(dataDir: string, credits: number): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      CLI,
      'keys',
      'create',
      '--email',
      'bench@regdata.local',
      '--kind',
      'standard',
      '--plan',
      'payg',
      '--credits',
      String(credits),
      '--json',
    ],
    { cwd: ROOT, env: { ...process.env, ...apiEnv(dataDir) } },
  );
  const key = (JSON.parse(stdout) as { key?: string }).key;
  if (!key) throw new Error(`keys create printed no key: ${stdout}`);
  return key;
}

/** `regdata serve` as a child process on the run's data folder. */
export async function startApiServer(dataDir: string, logFile: string): Promise<ChildServer> {
  return spawnServer({
    args: [CLI, 'serve'],
    env: apiEnv(dataDir),
    port: await freePort(),
    logFile,
    readyTimeoutMs: 30 * 60_000,
  });
}

/** Credits left on the bench account (proof that the run was metered). */
export async function benchBalance(dataDir: string): Promise<number | null> {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, 'credits', 'show', '--email', 'bench@regdata.local', '--json'],
      { cwd: ROOT, env: { ...process.env, ...apiEnv(dataDir) } },
    );
    const balance = (JSON.parse(stdout) as { balance?: number }).balance;
    return typeof balance === 'number' ? balance : null;
  } catch {
    return null;
  }
}

// Start-up figures of bench/README.md ("Start-up"): the CLI's cold start and the time from starting
// `regdata serve` to its first data answer on an existing snapshot. Plain JavaScript run by plain node, so
// no loader of its own skews what it times.
//
//   node bench/startup.mjs --data-dir <folder with a live snapshot> --key <its API key> [--runs 7] [--npx]
//                          [--bin <another checkout's bin/regdata.mjs>]
//
// --help: `node bin/regdata.mjs --help`, wall time of the whole process (start, print, exit).
// --npx: also `npx regdata --help`, and npx running a bin that does nothing (npm's own share).
// serve: `node bin/regdata.mjs serve` on the folder, then GET /api/v1/data/count?country=EE every 10 ms until
//        a 200: from the spawn to that answer. The server is stopped (SIGTERM) between runs.
// Each line also gives the CPU time (user + system, all threads) the process had used by then: on a busy
// machine the wall time mostly measures waiting for a core, and the CPU time is what a quiet one would take
// at most for the single-threaded part.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    bin: { type: 'string', default: path.join(ROOT, 'bin', 'regdata.mjs') },
    'data-dir': { type: 'string' },
    key: { type: 'string' },
    runs: { type: 'string', default: '7' },
    npx: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const BIN = path.resolve(values.bin);
const CLK_TCK = 100; // Linux's USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s

const stats = (ms) => {
  const s = [...ms].sort((a, b) => a - b);
  const f = (x) => (x / 1000).toFixed(2);
  return `min ${f(s[0])} s, median ${f(s[Math.floor(s.length / 2)])} s, max ${f(s.at(-1))} s`;
};
const summary = (runs) =>
  `wall ${stats(runs.map((r) => r.wall))}; CPU ${stats(runs.map((r) => r.cpu))} (${runs.length} runs)`;

/** Wall and CPU time of whole runs of a command, through GNU time. */
function timeSync(cmd, args, opts = {}) {
  const out = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', cmd, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      ...opts,
    });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    const [wall, user, sys] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
    out.push({ wall: wall * 1000, cpu: (user + sys) * 1000 });
  }
  return out;
}

/** CPU time (user + system, all threads) a live process has used so far, in ms. */
function cpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function firstAnswer(dataDir, key) {
  const port = await freePort();
  const env = {
    ...process.env,
    REGDATA_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`regdata serve exited ${child.exitCode}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/data/count?country=EE`, {
        headers: { authorization: `Bearer ${key}` },
      }).catch(() => null);
      if (res?.status === 200) {
        await res.arrayBuffer();
        return { wall: performance.now() - t0, cpu: cpuMs(child.pid) };
      }
      if (res) throw new Error(`first answer was ${res.status}: ${await res.text()}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

console.log(
  `node ${process.version}, ${os.cpus().length} cores, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`regdata --help (node bin/regdata.mjs): ${summary(timeSync(process.execPath, [BIN, '--help']))}`);
if (values.npx) {
  console.log(`npx regdata --help: ${summary(timeSync('npx', ['regdata', '--help'], { cwd: ROOT }))}`);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-npx-'));
  fs.mkdirSync(path.join(empty, 'node_modules', '.bin'), { recursive: true });
  const noop = path.join(empty, 'node_modules', '.bin', 'noop');
  fs.writeFileSync(noop, '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(path.join(empty, 'package.json'), '{"name":"noop","private":true}\n');
  console.log(`npx noop (npm's own start-up): ${summary(timeSync('npx', ['noop'], { cwd: empty }))}`);
  fs.rmSync(empty, { recursive: true, force: true });
}
if (values['data-dir'] && values.key) {
  const ms = [];
  for (let i = 0; i < runs; i++) ms.push(await firstAnswer(path.resolve(values['data-dir']), values.key));
  console.log(`regdata serve, first answer: ${summary(ms)}`);
}
console.log(
  `load after: ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);

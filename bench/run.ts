/**
 * `npm run bench -- [--scale <s>] [--seed <n>] [--data-dir <dir>] [--concurrency 1,4] [--requests N]
 *   [--max-seconds S] [--peer postgres] [--verify N] [--warmup N] [--no-write] [--output-root <dir>]`
 *
 * Makes or reuses the snapshot, measures the API over HTTP as a child process, the same requests through the
 * in-process engine, and optionally the PostgreSQL peer (bench/postgres/setup.sh starts one); writes
 * bench/results/<time>.json, a line of bench/history.jsonl and bench/README.md's latest results (into
 * another checkout's bench/ folder with --output-root: scripts/bench-on-node.sh runs the bench from a
 * worktree installed for another Node line and writes its results here).
 * Heavy at scale >= 0.1: run it under `flock /tmp/regdata-heavy.lock` on a shared machine.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_ROOT, runBench } from './bench.ts';

const { values } = parseArgs({
  options: {
    scale: { type: 'string' },
    seed: { type: 'string', default: '1' },
    'data-dir': { type: 'string' },
    concurrency: { type: 'string', default: '1,4' },
    requests: { type: 'string', default: '2000' },
    'max-seconds': { type: 'string', default: '300' },
    peer: { type: 'string' },
    verify: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '5000' },
    'no-write': { type: 'boolean', default: false },
    'output-root': { type: 'string' },
  },
});

const positive = (name: string, v: string | undefined): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) {
    process.stderr.write(`--${name} must be a positive number, got ${v}\n`);
    process.exit(2);
  }
  return n;
};
if (values.peer !== undefined && values.peer !== 'postgres') {
  process.stderr.write(`--peer must be postgres, got ${values.peer}\n`);
  process.exit(2);
}

const root = path.resolve(BENCH_ROOT, '..');
const outputRoot = path.resolve(values['output-root'] ?? BENCH_ROOT);
const { markdown, file } = await runBench({
  scale: values.scale !== undefined ? positive('scale', values.scale) : values['data-dir'] ? null : 1,
  seed: positive('seed', values.seed),
  dataDir: values['data-dir'],
  concurrency: values.concurrency.split(',').map((c) => Math.floor(positive('concurrency', c))),
  requests: Math.floor(positive('requests', values.requests)),
  maxSeconds: positive('max-seconds', values['max-seconds']),
  peer: values.peer === 'postgres' ? 'postgres' : null,
  pgUrl: process.env['REGDATA_BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:55432/regdata_bench',
  verify: Math.floor(Number(values.verify)),
  warmup: Math.max(0, Math.floor(Number(values.warmup))),
  workDir: path.join(root, '.tmp', 'bench'),
  output: values['no-write']
    ? null
    : {
        resultsDir: path.join(outputRoot, 'results'),
        historyFile: path.join(outputRoot, 'history.jsonl'),
        readme: path.join(outputRoot, 'README.md'),
      },
  log: (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write(`\n${markdown}`);
if (file) process.stdout.write(`\nwritten: ${file}, and in ${outputRoot}: history.jsonl, README.md\n`);

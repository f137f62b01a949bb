import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { IN_CI, missingTools } from './tools.ts';

/**
 * Starts a throwaway PostgreSQL on loopback for the run (scripts/pg-test-server.sh: Debian's server, which
 * `npm run test:setup` installs) and hands its URL to every test file as `inject('walletPgUrl')`. Each
 * file makes its own database in it (test/wallet/backends.ts), so files running in parallel never meet.
 * REGDATA_TEST_PG=0, or no PostgreSQL outside CI (test/tools-global-setup.ts has said so), skips it: the
 * wallet suite then runs on SQLite alone and says so. Under CI neither is allowed.
 */
const ROOT = path.resolve(import.meta.dirname, '..');

export default function setup(project: TestProject): () => void {
  const optedOut = process.env['REGDATA_TEST_PG'] === '0';
  if (optedOut && IN_CI)
    throw new Error('CI: REGDATA_TEST_PG=0 is refused; CI runs the wallet suite on PostgreSQL too');
  if (optedOut || missingTools().includes('postgresql')) {
    project.provide('walletPgUrl', null);
    return () => {};
  }
  // Under the system temp folder, not the checkout: as root the server runs as the postgres user, which
  // must be able to reach its folder, and a checkout under /root is closed to it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-pg-test-'));
  const script = path.join(ROOT, 'scripts', 'pg-test-server.sh');
  const stop = () => {
    execFileSync('bash', [script, 'stop', dir], { stdio: 'inherit' });
  };
  try {
    const out = execFileSync('bash', [script, 'start', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = out.trim().split('\n').at(-1) ?? '';
    if (!url.startsWith('postgres://')) throw new Error(`pg-test-server.sh printed no URL: ${out}`);
    project.provide('walletPgUrl', url);
  } catch (err) {
    stop();
    throw err;
  }
  return stop;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test PostgreSQL server's URL (its `postgres` database), or null when REGDATA_TEST_PG=0. */
    walletPgUrl: string | null;
  }
}

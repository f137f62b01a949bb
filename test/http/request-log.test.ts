import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { openWallet, type Wallet } from '../../src/wallet/wallet.ts';
import { emptyDataDir } from '../helpers/app.ts';

/*
 * The request log line, read from the app's real pino logger: a download link's signature is a bearer
 * credential for as long as the link lives, so it must not reach the logs with the URL.
 */

let app: FastifyInstance;
let engine: Engine;
let wallet: Wallet;
let dir: string;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-log-'));
  engine = await Engine.open(new SnapshotStore(emptyDataDir()));
  wallet = await openWallet({ dbPath: path.join(dir, 'wallet.db'), sweepIntervalMs: 0 });
  const stream = { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) };
  app = await buildApp({ engine, wallet, logger: { level: 'info', stream } });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  engine?.close();
  await wallet?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('request log', () => {
  it("masks a download link's signature in the logged URL and keeps the rest", async () => {
    const url =
      '/api/v1/data/companies/export?country=EE&format=csv&key_id=key_0&expires=1&signature=SeCrEtSiGnAtUrE';
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(403);
    const line = lines.find((l) => l['msg'] === 'request completed');
    expect(line).toBeDefined();
    expect((line!['req'] as { url: string }).url).toBe(
      '/api/v1/data/companies/export?country=EE&format=csv&key_id=key_0&expires=1&signature=[redacted]',
    );
    expect(lines.map((l) => JSON.stringify(l)).join('\n')).not.toContain('SeCrEtSiGnAtUrE');
  });

  it('masks it when the parameter name is percent-encoded (%73ignature=), which the route decodes', async () => {
    const url =
      '/api/v1/data/companies/export?country=EE&format=csv&key_id=key_0&expires=1&%73ignature=EnCoDeDsIgNaTuRe';
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(403);
    const logged = lines.map((l) => JSON.stringify(l)).join('\n');
    expect(logged).toContain('%73ignature=[redacted]');
    expect(logged).not.toContain('EnCoDeDsIgNaTuRe');
  });
});

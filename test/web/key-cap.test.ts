import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildWebApp, registeredClient, type WebTestApp } from './web-app.ts';

const run = promisify(execFile);
const CLI = path.resolve('bin/regdata.mjs');
const CAP = /already has 20 live API keys, the most allowed; revoke one it no longer needs/;

/** Issue 33 item 5: the cap on live API keys, on the dashboard and in `regdata keys create`. */
describe('live API keys per account', () => {
  let t: WebTestApp;
  beforeAll(async () => {
    t = await buildWebApp(inject('testDataDir'));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses the 21st key on the dashboard and in the CLI, with the reason; REGDATA_MAX_LIVE_KEYS raises it', async () => {
    const email = 'many-keys@test.local';
    const c = await registeredClient(t, email, 'correct horse battery');
    await c.get('/dashboard/keys');
    for (let i = 1; i <= 20; i++) {
      expect((await c.post('/dashboard/keys', { name: `key ${i}` })).statusCode, `key ${i}`).toBe(200);
    }
    const refused = await c.post('/dashboard/keys', { name: 'key 21' });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toMatch(CAP);
    expect(refused.body).not.toContain('Your new API key');

    const env = { ...process.env, REGDATA_WALLET_DB: t.walletPath, LOG_LEVEL: 'silent' };
    const args = [CLI, 'keys', 'create', '--email', email, '--kind', 'standard'];
    const cli = await run(process.execPath, args, { env }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(cli?.code).toBe(1);
    expect(cli?.stderr).toMatch(CAP);
    expect((await t.wallet.listKeys({ email })).filter((k) => k.revokedAt === null)).toHaveLength(20);

    // Operators are not exempt, but the setting lets them give an account more.
    await run(process.execPath, args, { env: { ...env, REGDATA_MAX_LIVE_KEYS: '21' } });
    expect((await t.wallet.listKeys({ email })).filter((k) => k.revokedAt === null)).toHaveLength(21);
  });
});

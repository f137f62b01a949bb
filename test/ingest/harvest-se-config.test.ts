import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { fdbCredentials } from '../../ingest/harvest/se/index.ts';

/* The SCB FDB certificate comes from configuration only, and is optional. */

describe('SE harvest configuration', () => {
  it('has no FDB part without a certificate', () => {
    expect(fdbCredentials(loadConfig({}))).toBeNull();
  });

  it('refuses a certificate without its key', () => {
    expect(() => loadConfig({ REGDATA_SCB_FDB_CERT: '/x/cert.pem' })).toThrow(/REGDATA_SCB_FDB_KEY/);
  });

  it('reads the PEM files it names, at SCB’s address unless told otherwise', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-fdb-cfg-'));
    try {
      fs.writeFileSync(path.join(dir, 'c.pem'), 'CERT');
      fs.writeFileSync(path.join(dir, 'k.pem'), 'KEY');
      const c = fdbCredentials(
        loadConfig({
          REGDATA_SCB_FDB_CERT: path.join(dir, 'c.pem'),
          REGDATA_SCB_FDB_KEY: path.join(dir, 'k.pem'),
        }),
      )!;
      expect(c.baseUrl).toBe('https://privateapi.scb.se/nv0101/v1/sokpavar/');
      expect([c.credentials.cert?.toString(), c.credentials.key?.toString(), c.credentials.pfx]).toEqual([
        'CERT',
        'KEY',
        undefined,
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

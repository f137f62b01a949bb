import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { spawnTsChild } from '../wallet/child.ts';
import { linkedDataDir } from './helpers/real-server.ts';

const BIN = fileURLToPath(new URL('../../bin/regdata.mjs', import.meta.url));

/*
 * `regdata serve` writes its log lines off the event loop (src/server.ts: pino's asynchronous destination),
 * so they sit in a buffer until the write completes. A real child process, its stdout a pipe: every
 * request's line arrives, and the lines written while it shuts down reach the pipe before the process ends.
 */
describe('the server log, written asynchronously', () => {
  it('carries each request’s line, and the last lines of a graceful shutdown', async () => {
    const env = {
      PATH: process.env['PATH'] ?? '',
      REGDATA_DATA_DIR: linkedDataDir(inject('testDataDir')),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
    };
    const child = spawnTsChild(BIN, ['serve'], env);
    const logged = () =>
      child.lines.flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
    let url: string | undefined;
    for (let i = 0; i < 1200 && url === undefined; i++) {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(child.lines.join('\n'));
      if (m) url = m[1];
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(url, child.stderr()).toBeDefined();

    const ids = Array.from({ length: 20 }, (_, i) => `log-flush-${i}`);
    for (const id of ids) {
      const res = await fetch(`${url}/healthz`, { headers: { 'x-request-id': id } });
      expect(res.status).toBe(200);
    }
    child.proc.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);

    const lines = logged();
    const completed = lines.filter((l) => l['msg'] === 'request completed').map((l) => l['reqId']);
    expect(completed).toEqual(expect.arrayContaining(ids));
    expect(lines.at(-1)?.['msg']).toBe('shut down');
  });
});

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { startServer, type StartedServer } from '../../src/server.ts';

/**
 * The real server (startServer, as `regdata serve` runs it) on an ephemeral loopback port, with its own
 * data folder: the shared world's snapshot linked in, or none (data endpoints 502), and a fresh wallet.
 */
export interface TestServer {
  server: StartedServer;
  /** http://127.0.0.1:<port> */
  url: string;
  adminKey: string;
  close(): Promise<void>;
}

export async function startTestServer(
  worldDir: string | null,
  env: Record<string, string> = {},
): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-server-'));
  if (worldDir !== null) {
    const world = new SnapshotStore(worldDir);
    const id = world.currentId()!;
    const store = new SnapshotStore(dataDir);
    fs.mkdirSync(store.snapshotsDir);
    fs.symlinkSync(world.snapshotDir(id), store.snapshotDir(id));
    store.promote(id);
  }
  const config = loadConfig({
    PORT: '0',
    REGDATA_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
    ...env,
  });
  const server = await startServer(config, { handleSignals: false });
  const adminKey = server.wallet.createKey({ email: 'admin@test.local', kind: 'admin' }).key;
  return {
    server,
    url: server.url,
    adminKey,
    async close() {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Sends raw bytes over a socket and returns the raw answer: for requests fetch will not send (an invalid
 * method, oversized headers).
 */
export function rawRequest(
  url: string,
  bytes: string,
): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err) => (chunks.length ? undefined : reject(err)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, head, body: split < 0 ? '' : text.slice(split + 4) });
    });
  });
}

/**
 * What the stateless MCP endpoint costs on top of the REST call it wraps: sequential requests over a real
 * socket, REST `GET /count` against MCP `tools/call count_companies` (same operation), and `tools/list`.
 * Also the heap after many requests, since every request builds its own Server and transport.
 *
 *   npx tsx test/mcp/measure-overhead.ts <dataDir> [requests]
 *
 * A measurement, not a test: nothing here asserts a time.
 */
import { performance } from 'node:perf_hooks';
import { buildTestApp } from '../helpers/app.ts';
import { listen } from './helpers.ts';

const dataDir = process.argv[2];
const n = Number(process.argv[3] ?? 1000);
if (!dataDir) throw new Error('usage: measure-overhead.ts <dataDir> [requests]');

const t = await buildTestApp(dataDir);
const url = await listen(t.app);
const auth = { authorization: `Bearer ${t.adminKey}` };
const restUrl = new URL('/api/v1/data/count?country=EE&vat_active=true', url);

const rpc = (method: string, params: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });

async function timeIt(label: string, once: () => Promise<Response>): Promise<void> {
  for (let i = 0; i < 50; i++) await (await once()).arrayBuffer(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const res = await once();
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${label}: HTTP ${res.status}`);
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  const q = (p: number) => (ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? 0).toFixed(2);
  console.log(`${label.padEnd(34)} n=${n} p50=${q(0.5)} ms p90=${q(0.9)} ms p99=${q(0.99)} ms`);
}

const heap = () => (process.memoryUsage().heapUsed / 2 ** 20).toFixed(1);
global.gc?.();
const heapBefore = heap();
await timeIt('REST GET /count', () => fetch(restUrl, { headers: auth }));
await timeIt('MCP tools/call count_companies', () =>
  rpc('tools/call', { name: 'count_companies', arguments: { country: 'EE', vat_active: true } }),
);
await timeIt('MCP tools/list', () => rpc('tools/list', {}));
global.gc?.();
console.log(`heap used: ${heapBefore} MiB before, ${heap()} MiB after ${3 * (n + 50)} requests`);
await t.close();

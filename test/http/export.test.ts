import crypto from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startServer, type StartedServer } from '../../src/server.ts';
import { connectClient } from '../mcp/helpers.ts';
import { parseCsv } from './helpers/csv.ts';

/*
 * Issue 19, the export and the cost estimate against the real server on a real socket. The oracle of an
 * export is search itself: every page of the same filters and sort, concatenated. CSV is read back with
 * the small RFC 4180 reader of helpers/csv.ts and Parquet with a DuckDB of the test's own; neither is code
 * under test. Charges are checked against the price set here and the wallet's own ledger audit.
 */

const PRICE = 0.05;
/** The link secret of this server: the test signs links of its own with it, from the documented format. */
const LINK_SECRET = 'test-link-secret-0123456789abcdefghijklmnop';
const micro = (credits: number) => Math.round(credits * 1e6);
type Row = Record<string, unknown>;

let tmp: string;
let server: StartedServer;
let base: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-test-export-'));
  const dataDir = path.join(tmp, 'data');
  fs.cpSync(inject('testDataDir'), dataDir, { recursive: true });
  await leaveExportFolders(path.join(tmp, 'exports'));
  server = await startServer(
    loadConfig({
      PORT: '0',
      REGDATA_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      REGDATA_WALLET_SWEEP_INTERVAL_MS: '0',
      REGDATA_PRICES: `EE=${PRICE},PL=${PRICE}`,
      REGDATA_EXPORT_MAX_ROWS: '200000',
      REGDATA_EXPORT_DIR: path.join(tmp, 'exports'),
      REGDATA_EXPORT_LINK_SECRET: LINK_SECRET,
    }),
    { handleSignals: false, engine: { connections: 2 } },
  );
  base = `${server.url}/api/v1/data`;
}, 180_000);

afterAll(async () => {
  live?.kill();
  await server?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Export folders as crashed and running servers leave them, made before the server under test starts. */
let live: ChildProcess | undefined;
const leftovers: Record<string, 'removed' | 'kept'> = {};
async function leaveExportFolders(dir: string) {
  // A process that has exited (its pid is free) and one that keeps running, as other servers would be.
  const dead = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => dead.once('exit', r));
  live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)']);
  const old = new Date(Date.now() - 2 * 3_600_000);
  const make = (name: string, fate: 'removed' | 'kept', mtime?: Date) => {
    fs.mkdirSync(path.join(dir, name), { recursive: true });
    fs.writeFileSync(path.join(dir, name, 'rows.csv'), 'registrikood\n1\n');
    if (mtime) fs.utimesSync(path.join(dir, name), mtime, mtime);
    leftovers[name] = fate;
  };
  make(`export-${dead.pid}-aB3dE9`, 'removed');
  make(`export-${live.pid}-Zz0Yy1`, 'kept');
  // This process's own pid: a predecessor's (the server under test runs in this process).
  make(`export-${process.pid}-Qq7Ww8`, 'removed');
  // Without a pid (an earlier version): removed once older than the export hold timeout (1 h).
  make('export-Old123', 'removed', old);
  make('export-New456', 'kept');
  make('unrelated', 'kept');
}

let keys = 0;
async function newKey(credits: number, plan: 'payg' | 'trial' | 'unlimited' = 'payg') {
  const email = `export-${++keys}@test.local`;
  return { key: (await server.wallet.createKey({ email, kind: 'standard', plan, credits })).key, email };
}
const balance = async (email: string) => (await server.wallet.balance({ email })).balance;

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  trailers: NodeJS.Dict<string>;
  body: Buffer;
}

function get(pathAndQuery: string, key: string, headers: Record<string, string> = {}): Promise<Got> {
  return fetchUrl(`${base}${pathAndQuery}`, { authorization: `Bearer ${key}`, ...headers });
}

const json = (g: Got) => JSON.parse(g.body.toString('utf8')) as Row & { detail?: unknown };

/** Every page of a search, concatenated: the oracle of an export with the same filters. */
async function allPages(query: string, key: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = 1; ; page++) {
    const res = json(await get(`/companies?${query}&page=${page}&page_size=500`, key));
    const data = res['data'] as { items: Row[]; total: number };
    rows.push(...data.items);
    if (rows.length >= data.total || data.items.length === 0) return rows;
  }
}

/** A search row's value as the CSV writes it: numbers compared as numbers, null as an unquoted empty. */
function sameCell(cell: string | null, value: unknown): boolean {
  if (value === null || value === undefined) return cell === null;
  if (typeof value === 'number') return cell !== null && Number(cell) === value;
  return cell === String(value);
}

async function readParquet(bytes: Buffer): Promise<Row[]> {
  const file = path.join(tmp, `read-${Date.now()}-${Math.random()}.parquet`);
  fs.writeFileSync(file, bytes);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    const reader = await conn.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
    return reader.getRowObjectsJson() as Row[];
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

describe('GET /api/v1/data/companies/export', () => {
  const filters = 'country=EE&status=__all__&sort_by=company_name&sort_dir=desc';

  it('equals the concatenation of every search page, in every format, and charges rows x price', async () => {
    const { key, email } = await newKey(1000);
    const expected = await allPages(filters, key);
    expect(expected.length).toBeGreaterThan(100);
    const columns = Object.keys(expected[0]!);

    const before = await balance(email);
    const nd = await get(`/companies/export?${filters}&format=ndjson`, key);
    expect(nd.status).toBe(200);
    expect(nd.headers['content-type']).toBe('application/x-ndjson');
    expect(nd.headers['data-as-of']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const lines = nd.body.toString('utf8').trimEnd().split('\n');
    const meta = (JSON.parse(lines.pop()!) as { meta: Record<string, number> }).meta;
    expect(lines.map((l) => JSON.parse(l) as Row)).toEqual(expected);
    expect(meta['rows_returned']).toBe(expected.length);
    expect(micro(meta['credits_charged']!)).toBe(micro(expected.length * PRICE));
    expect(micro(meta['credits_reserved']!)).toBe(micro(expected.length * PRICE));
    expect(micro(before - (await balance(email)))).toBe(micro(expected.length * PRICE));

    const csv = await get(`/companies/export?${filters}&format=csv`, key);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...records] = parseCsv(csv.body.toString('utf8'));
    expect(header).toEqual(columns);
    expect(records).toHaveLength(expected.length);
    records.forEach((record, r) =>
      columns.forEach((c, i) =>
        expect(sameCell(record[i]!, expected[r]![c]), `row ${r} ${c}: ${record[i]}`).toBe(true),
      ),
    );
    const csvMeta = JSON.parse(csv.trailers['regdata-meta']!) as Record<string, number>;
    expect(csvMeta['rows_returned']).toBe(expected.length);

    const pq = await get(`/companies/export?${filters}&format=parquet`, key);
    expect(pq.status).toBe(200);
    expect(pq.headers['content-type']).toBe('application/vnd.apache.parquet');
    const parquetRows = await readParquet(pq.body);
    expect(parquetRows).toHaveLength(expected.length);
    parquetRows.forEach((row, r) =>
      columns.forEach((c) => {
        const want = expected[r]![c];
        const got = row[c];
        expect(typeof want === 'number' ? Number(got) : got, `row ${r} ${c}`).toEqual(want ?? null);
      }),
    );
    expect(JSON.parse(pq.trailers['regdata-meta']!)).toMatchObject({ rows_returned: expected.length });
    expect(micro(before - (await balance(email)))).toBe(micro(3 * expected.length * PRICE));
    expect((await server.wallet.audit()).accounts.every((a) => a.conserved)).toBe(true);
  });

  it('stops at max_rows and reserves min(total, max_rows)', async () => {
    const { key, email } = await newKey(100);
    const expected = (await allPages(filters, key)).slice(0, 7);
    const before = await balance(email);
    const res = await get(`/companies/export?${filters}&format=ndjson&max_rows=7`, key);
    const lines = res.body.toString('utf8').trimEnd().split('\n');
    const meta = (JSON.parse(lines.pop()!) as { meta: Record<string, number> }).meta;
    expect(lines.map((l) => JSON.parse(l) as Row)).toEqual(expected);
    expect(micro(meta['credits_reserved']!)).toBe(micro(7 * PRICE));
    expect(micro(before - (await balance(email)))).toBe(micro(7 * PRICE));
  });

  it('answers 402 with the spec message before any byte, and charges nothing', async () => {
    const { key, email } = await newKey(PRICE * 3);
    const before = await balance(email);
    const res = await get(`/companies/export?country=EE&format=csv`, key);
    expect(res.status).toBe(402);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(json(res).detail).toMatch(/insufficient/i);
    expect(await balance(email)).toBe(before);
  });

  it('rejects unknown and out-of-bounds parameters with 422 and runs nothing', async () => {
    const { key, email } = await newKey(10);
    const before = await balance(email);
    const cases: [string, string][] = [
      ['country=EE&format=csv&page=2', 'page'],
      ['country=EE&format=csv&page_size=10', 'page_size'],
      ['country=EE&format=xlsx', 'format'],
      ['country=EE', 'format'],
      ['country=EE&format=csv&max_rows=0', 'max_rows'],
      ['country=EE&format=csv&max_rows=200001', 'max_rows'],
      ['country=EE&format=csv&se_workplace_kommun=0180', 'se_workplace_kommun'],
      ['country=EE&format=csv&updated_since=2000-01-01', 'updated_since'],
    ];
    for (const [query, param] of cases) {
      const res = await get(`/companies/export?${query}`, key);
      expect(res.status, query).toBe(422);
      expect(
        (json(res).detail as { param: string }[]).map((d) => d.param),
        query,
      ).toContain(param);
    }
    expect(await balance(email)).toBe(before);
  });

  it('repeats an export with the same Idempotency-Key without a second charge', async () => {
    const { key, email } = await newKey(100);
    const before = await balance(email);
    const headers = { 'idempotency-key': 'export-retry-1' };
    const once = await get(`/companies/export?${filters}&format=ndjson&max_rows=5`, key, headers);
    const again = await get(`/companies/export?${filters}&format=ndjson&max_rows=5`, key, headers);
    expect(again.body.toString('utf8')).toBe(once.body.toString('utf8'));
    expect(micro(before - (await balance(email)))).toBe(micro(5 * PRICE));
    const other = await get(`/companies/export?${filters}&format=csv&max_rows=5`, key, headers);
    expect(other.status).toBe(422);
  });

  it('charges only the rows the connection took when the client goes away, and releases the rest', async () => {
    const { key, email } = await newKey(100_000);
    const query = 'country=PL&status=__all__&format=csv';
    const total = (json(await get(`/count?country=PL&status=__all__`, key)) as { count: number }).count;
    const before = await balance(email);
    // Read the head and the first chunk of the body, then cut the connection.
    const received = await new Promise<string>((resolve, reject) => {
      const req = http.get(`${base}/companies/export?${query}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      req.on('response', (res) => {
        res.once('data', (chunk: Buffer) => {
          req.destroy();
          resolve(chunk.toString('utf8'));
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    });
    // The settle follows the server's noticing the closed socket: wait for the usage record.
    let record: Awaited<ReturnType<typeof server.wallet.usage>>['records'][number] | undefined;
    for (let i = 0; i < 100 && !record; i++) {
      await new Promise((r) => setTimeout(r, 50));
      record = (await server.wallet.usage({ email })).records.find((r) => r.operation === 'export');
    }
    expect(record).toBeDefined();
    const charged = record!.rowsReturned!;
    const clientRows = parseCsv(received).length - 2; // less the header and the cut-off last record
    expect(charged).toBeGreaterThanOrEqual(clientRows);
    expect(charged).toBeLessThan(total);
    expect(micro(record!.creditsReserved)).toBe(micro(total * PRICE));
    expect(micro(record!.creditsCharged)).toBe(micro(charged * PRICE));
    // Exactly the sent rows were taken; the rest of the hold went back.
    expect(micro(before - (await balance(email)))).toBe(micro(charged * PRICE));
    const audit = await server.wallet.audit();
    expect(audit.accounts.every((a) => a.conserved)).toBe(true);
    expect(audit.usageMismatches).toEqual([]);
    expect((await server.wallet.balance({ email })).pending).toBe(0);
  });
});

describe('export folders at start-up', () => {
  it('removes those of processes that are gone and keeps those of live ones', () => {
    const left = new Set(fs.readdirSync(path.join(tmp, 'exports')));
    for (const [name, fate] of Object.entries(leftovers)) expect(left.has(name), name).toBe(fate === 'kept');
  });
});

describe('concurrent exports of one key', () => {
  /** An export whose client took the head and one chunk and then stopped reading: it stays running. */
  function stalled(key: string): Promise<{ status: number; cut: () => void }> {
    return new Promise((resolve, reject) => {
      const req = http.get(`${base}/companies/export?country=PL&status=__all__&format=ndjson`, {
        headers: { authorization: `Bearer ${key}` },
      });
      req.on('response', (res) => {
        res.once('data', () => {
          res.pause();
          resolve({ status: res.statusCode ?? 0, cut: () => req.destroy() });
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    });
  }

  it('runs at most two at once per key (429 with Retry-After, nothing charged); other keys are not held up', async () => {
    const { key, email } = await newKey(100_000);
    const first = await stalled(key);
    const second = await stalled(key);
    expect([first.status, second.status]).toEqual([200, 200]);
    const exportsSeen = async (who: string) =>
      (await server.wallet.usage({ email: who })).records.filter((r) => r.operation === 'export').length;
    // Both are still running: neither has settled into a usage record.
    expect(await exportsSeen(email)).toBe(0);
    const third = await get(`/companies/export?country=EE&format=csv&max_rows=3`, key);
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('5');
    expect(json(third)).toEqual({ detail: expect.stringMatching(/at most 2 per API key/) as unknown });
    const other = await newKey(100);
    expect((await get(`/companies/export?country=EE&format=csv&max_rows=3`, other.key)).status).toBe(200);

    first.cut();
    second.cut();
    for (let i = 0; i < 100 && (await exportsSeen(email)) < 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    // The 429 left no record; the two cut downloads settled, and the slots are free again.
    expect(await exportsSeen(email)).toBe(2);
    expect((await get(`/companies/export?country=EE&format=csv&max_rows=3`, key)).status).toBe(200);
    expect((await server.wallet.audit()).accounts.every((a) => a.conserved)).toBe(true);
  });
});

describe('exports in the request metrics', () => {
  it('counts a finished export under its route and status, and one the client cut short as 499', async () => {
    const admin = (await server.wallet.createKey({ email: 'export-admin@test.local', kind: 'admin' })).key;
    const count = async (status: string) => {
      const text = (await get('/../../../metrics', admin)).body.toString('utf8');
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('regdata_http_requests_total{') &&
            l.includes('route="/api/v1/data/companies/export"') &&
            l.includes(`status="${status}"`),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const { key } = await newKey(100_000);
    const [ok, cut] = [await count('200'), await count('499')];
    expect((await get('/companies/export?country=EE&format=csv&max_rows=3', key)).status).toBe(200);
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}/companies/export?country=PL&status=__all__&format=ndjson`, {
        headers: { authorization: `Bearer ${key}` },
      });
      req.on('response', (res) => res.once('data', () => (req.destroy(), resolve())));
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    });
    for (let i = 0; i < 100 && (await count('499')) === cut; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await count('200')).toBe(ok + 1);
    expect(await count('499')).toBe(cut + 1);
  });
});

describe('GET /api/v1/data/estimate', () => {
  it('equals what the call then reserves, for every metered operation', async () => {
    const { key } = await newKey(1000);
    const est = async (q: string) => (await get(`/estimate?${q}`, key)).body;
    const code = ((await allPages('country=EE', key))[0] as { registrikood: string }).registrikood;
    const cases: [string, string, (g: Got) => number][] = [
      [
        'operation=search&country=EE&page_size=7',
        '/companies?country=EE&page_size=7',
        (g) => (json(g)['meta'] as { credits_reserved: number }).credits_reserved,
      ],
      [
        'operation=export&country=EE&status=__all__&format=ndjson&max_rows=9',
        '/companies/export?country=EE&status=__all__&format=ndjson&max_rows=9',
        (g) =>
          (
            JSON.parse(g.body.toString('utf8').trimEnd().split('\n').pop()!) as {
              meta: { credits_reserved: number };
            }
          ).meta.credits_reserved,
      ],
      [
        'operation=export&country=EE&format=csv&company_name=zzzzqqqq',
        '/companies/export?country=EE&format=csv&company_name=zzzzqqqq',
        (g) => (JSON.parse(g.trailers['regdata-meta']!) as { credits_reserved: number }).credits_reserved,
      ],
      [
        `operation=detail&country=EE&registrikood=${code}`,
        `/companies/${code}?country=EE`,
        (g) => (json(g)['meta'] as { credits_reserved: number }).credits_reserved,
      ],
    ];
    for (const [estimateQuery, call, reserved] of cases) {
      const e = JSON.parse((await est(estimateQuery)).toString('utf8')) as Record<string, unknown>;
      expect(e, estimateQuery).toMatchObject({
        country: 'EE',
        waived: false,
        waiver: null,
        would_succeed: true,
      });
      expect(micro(e['credits_needed'] as number)).toBe(micro((e['rows'] as number) * PRICE));
      expect(micro(reserved(await get(call, key))), estimateQuery).toBe(micro(e['credits_needed'] as number));
    }
  });

  it('applies waivers, says when the balance falls short, and is free', async () => {
    const poor = await newKey(PRICE * 3);
    const short = json(await get('/estimate?operation=search&country=EE&page_size=4', poor.key));
    expect(short).toMatchObject({ rows: 4, would_succeed: false, waived: false });
    expect(micro(await balance(poor.email))).toBe(micro(PRICE * 3));
    const trial = await newKey(0, 'trial');
    expect(json(await get('/estimate?operation=search&country=EE', trial.key))).toMatchObject({
      rows: 50,
      credits_needed: 0,
      waived: true,
      waiver: 'trial',
      would_succeed: true,
    });
    const unlimited = await newKey(0, 'unlimited');
    expect(
      json(await get('/estimate?operation=changes&country=EE&since=2026-01-01', unlimited.key)),
    ).toMatchObject({ waiver: 'unlimited', credits_needed: 0 });
  });

  it("validates the operation's own parameters with 422", async () => {
    const { key } = await newKey(10);
    const cases: [string, string][] = [
      ['operation=search&country=EE&format=csv', 'format'],
      ['operation=export&country=EE', 'format'],
      ['operation=changes&country=EE', 'since'],
      ['operation=detail&country=EE', 'registrikood'],
      ['operation=workplaces&country=EE&registrikood=10000000', 'country'],
      ['operation=buy&country=EE', 'operation'],
      ['operation=search&country=EE&bogus=1', 'bogus'],
    ];
    for (const [query, param] of cases) {
      const res = await get(`/estimate?${query}`, key);
      expect(res.status, query).toBe(422);
      expect(
        (json(res).detail as { param: string }[]).map((d) => d.param),
        query,
      ).toContain(param);
    }
  });

  it('is the MCP tool estimate_cost, on the same wallet; argument errors are located in arguments', async () => {
    const { key } = await newKey(10);
    const client = await connectClient(new URL(`${server.url}/mcp`), key);
    try {
      const result = (await client.callTool({
        name: 'estimate_cost',
        arguments: { operation: 'search', country: 'EE', page_size: 20 },
      })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toMatchObject({ rows: 20, would_succeed: true, credit_balance: 10 });
      expect(micro((result.structuredContent as { credits_needed: number }).credits_needed)).toBe(
        micro(20 * PRICE),
      );
      const bad = (await client.callTool({
        name: 'estimate_cost',
        arguments: { operation: 'export', country: 'EE', format: 'csv', page: 2 },
      })) as CallToolResult;
      expect(bad.isError).toBe(true);
      const failure = JSON.parse((bad.content[0] as { text: string }).text) as {
        status: number;
        detail: { loc: string[]; type: string }[];
      };
      expect(failure.status).toBe(422);
      expect(failure.detail[0]).toMatchObject({ loc: ['arguments', 'page'], type: 'unknown_parameter' });
      const tooOld = (await client.callTool({
        name: 'count_companies',
        arguments: { country: 'EE', updated_since: '2000-01-01' },
      })) as CallToolResult;
      expect(JSON.parse((tooOld.content[0] as { text: string }).text)).toMatchObject({
        status: 422,
        detail: [{ loc: ['arguments', 'updated_since'], type: 'history_too_old' }],
      });
    } finally {
      await client.close();
    }
  });
});

/** A GET of a whole URL with only the headers given (a download link needs no Authorization). */
function fetchUrl(url: string, headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          trailers: res.trailers,
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/**
 * A link signed here from the format docs/api-decisions.md documents (not with the code under test):
 * base64url HMAC-SHA256 over "regdata-export-link-v1\n" + every parameter but signature, sorted by name.
 */
function signedUrl(query: [string, string][], keyId: string, expires: number): string {
  const entries: [string, string][] = [...query, ['key_id', keyId], ['expires', String(expires)]];
  const sorted = [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const signature = crypto
    .createHmac('sha256', LINK_SECRET)
    .update(`regdata-export-link-v1\n${new URLSearchParams(sorted).toString()}`)
    .digest('base64url');
  return `${base}/companies/export?${new URLSearchParams([...entries, ['signature', signature]]).toString()}`;
}

describe('MCP export_companies: a signed download link to the REST export', () => {
  const args = {
    country: 'EE',
    status: ['__all__'],
    annual_revenue_min: 1000,
    sort_by: 'company_name',
    sort_dir: 'desc',
  };
  const restQuery = 'country=EE&status=__all__&annual_revenue_min=1000&sort_by=company_name&sort_dir=desc';

  async function link(key: string, extra: Record<string, unknown>) {
    const client = await connectClient(new URL(`${server.url}/mcp`), key);
    try {
      return (await client.callTool({
        name: 'export_companies',
        arguments: { ...args, ...extra },
      })) as CallToolResult;
    } finally {
      await client.close();
    }
  }

  const structured = (r: CallToolResult) => r.structuredContent as Record<string, unknown> & { url: string };

  it('downloads without the key the file the REST export gives, charged per row sent on the same wallet', async () => {
    const { key, email } = await newKey(1000);
    const expected = await allPages(restQuery, key);
    expect(expected.length).toBeGreaterThan(20);

    const before = await balance(email);
    const result = await link(key, { format: 'ndjson' });
    expect(result.isError ?? false).toBe(false);
    const answer = structured(result);
    expect(answer).toMatchObject({ country: 'EE', format: 'ndjson', rows: expected.length, waived: false });
    expect(micro(answer['credits_needed'] as number)).toBe(micro(expected.length * PRICE));
    // The link names the key by id, never the key itself; the text states the data's date.
    expect(answer.url).not.toContain(key);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain(`Data as of ${answer['data_as_of'] as string}`);
    expect(text).toContain(answer.url);
    expect(result.content[1]).toMatchObject({
      type: 'resource_link',
      uri: answer.url,
      mimeType: 'application/x-ndjson',
    });
    // Pricing the link is free.
    expect(await balance(email)).toBe(before);

    const nd = await fetchUrl(answer.url);
    expect(nd.status).toBe(200);
    const lines = nd.body.toString('utf8').trimEnd().split('\n');
    const meta = (JSON.parse(lines.pop()!) as { meta: Record<string, number> }).meta;
    expect(lines.map((l) => JSON.parse(l) as Row)).toEqual(expected);
    expect(meta['rows_returned']).toBe(expected.length);
    expect(micro(before - (await balance(email)))).toBe(micro(expected.length * PRICE));
    const records = (await server.wallet.usage({ email })).records.filter((r) => r.operation === 'export');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ channel: 'mcp', rowsReturned: expected.length });

    // CSV and Parquet through links are byte for byte the REST export of the same filters.
    for (const format of ['csv', 'parquet'] as const) {
      const viaLink = await fetchUrl(structured(await link(key, { format })).url);
      const viaRest = await get(`/companies/export?${restQuery}&format=${format}`, key);
      expect(viaLink.status, format).toBe(200);
      expect(viaLink.body.equals(viaRest.body), format).toBe(true);
      expect(JSON.parse(viaLink.trailers['regdata-meta']!)).toMatchObject({ rows_returned: expected.length });
    }
    expect(micro(before - (await balance(email)))).toBe(micro(5 * expected.length * PRICE));
    expect((await server.wallet.audit()).accounts.every((a) => a.conserved)).toBe(true);
  });

  it('refuses a changed, extended, re-keyed or expired link with 403 {detail}, and charges nothing', async () => {
    const { key, email } = await newKey(1000);
    const other = await server.wallet.createKey({
      email: 'export-other@test.local',
      kind: 'standard',
      credits: 100,
    });
    const url = new URL(structured(await link(key, { format: 'csv', max_rows: 5 })).url);
    const keyId = url.searchParams.get('key_id')!;
    const before = await balance(email);
    const otherBefore = await balance('export-other@test.local');
    const variant = (edit: (q: URLSearchParams) => void) => {
      const u = new URL(url);
      edit(u.searchParams);
      return u.toString();
    };
    const params = [...url.searchParams].filter(([k]) => !['key_id', 'expires', 'signature'].includes(k));
    const refused: [string, string, RegExp][] = [
      ['a filter changed', variant((q) => q.set('annual_revenue_min', '0')), /not valid/],
      ['max_rows raised', variant((q) => q.set('max_rows', '500')), /not valid/],
      ['a filter added', variant((q) => q.append('vat_active', 'true')), /not valid/],
      ['a filter removed', variant((q) => q.delete('annual_revenue_min')), /not valid/],
      ['the format changed', variant((q) => q.set('format', 'ndjson')), /not valid/],
      [
        'expires moved',
        variant((q) => q.set('expires', String(Number(q.get('expires')) + 3600))),
        /not valid/,
      ],
      ['another key', variant((q) => q.set('key_id', other.keyId)), /not valid/],
      ['no signature', variant((q) => q.delete('signature')), /key_id, expires and signature/],
      ['expired', signedUrl(params, keyId, Math.floor(Date.now() / 1000) - 1), /expired/],
    ];
    for (const [what, bad, why] of refused) {
      const res = await fetchUrl(bad);
      expect(res.status, what).toBe(403);
      expect(Object.keys(json(res)), what).toEqual(['detail']);
      expect(json(res).detail, what).toMatch(why);
    }
    // The same format signed here with a later expiry is accepted: the documented format is the real one.
    const own = await fetchUrl(signedUrl(params, keyId, Math.floor(Date.now() / 1000) + 60));
    expect(own.status).toBe(200);
    // A link and an Authorization header together: which one pays would be a guess.
    expect((await fetchUrl(url.toString(), { authorization: `Bearer ${key}` })).status).toBe(400);
    expect(micro(before - (await balance(email)))).toBe(micro(5 * PRICE));
    expect(await balance('export-other@test.local')).toBe(otherBefore);
    // The link dies with its key.
    await server.wallet.revokeKey({ keyId });
    const revoked = await fetchUrl(url.toString());
    expect(revoked.status).toBe(403);
    expect(json(revoked).detail).toMatch(/revoked/);
    expect(micro(before - (await balance(email)))).toBe(micro(5 * PRICE));
  });

  it('answers the REST 402 and 422s before any link is made, and charges nothing', async () => {
    const { key, email } = await newKey(PRICE * 3);
    const before = await balance(email);
    const rest = await get(`/companies/export?${restQuery}&format=csv`, key);
    expect(rest.status).toBe(402);
    const poor = await link(key, { format: 'csv' });
    expect(poor.isError).toBe(true);
    expect(JSON.parse((poor.content[0] as { text: string }).text)).toEqual({
      status: 402,
      detail: json(rest).detail,
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ format: 'csv', page: 2 }, 'page'],
      [{ format: 'xlsx' }, 'format'],
      [{}, 'format'],
      [{ format: 'csv', max_rows: 200_001 }, 'max_rows'],
      [{ format: 'csv', se_workplace_kommun: ['0180'] }, 'se_workplace_kommun'],
      [{ format: 'csv', updated_since: '2000-01-01' }, 'updated_since'],
    ];
    for (const [extra, param] of cases) {
      const bad = await link(key, extra);
      const failure = JSON.parse((bad.content[0] as { text: string }).text) as {
        status: number;
        detail: { loc: string[]; param: string }[];
      };
      expect(failure.status, param).toBe(422);
      expect(
        failure.detail.map((d) => d.loc),
        param,
      ).toContainEqual(['arguments', param]);
    }
    expect(await balance(email)).toBe(before);
  });
});

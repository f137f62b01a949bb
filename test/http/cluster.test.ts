import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openWallet, type Wallet } from '../../src/wallet/wallet.ts';
import { connectClient } from '../mcp/helpers.ts';
import { linkedDataDir } from './helpers/real-server.ts';
import { startReplica, stopReplica, type Replica } from './helpers/replica-process.ts';

/*
 * Issue 18 item 4: three real `regdata serve` processes on one data folder, their wallet in one PostgreSQL
 * database, driven concurrently through REST and MCP (the SDK's client) with the same keys. Mid-load one
 * replica is SIGKILLed and started again. Afterwards the money is checked exactly against what the clients
 * saw: every 200 says what it charged; the only unknowns are the requests the kill cut, and for those the
 * ledger may hold a settled charge (at most one per cut request, on the dead process's holds) or a void,
 * never a pending hold once a sweeper has seen the process gone. Then one key's rate limit is hammered
 * through all three, and an idempotent call is retried on the other replicas.
 */

const PG_URL = inject('walletPgUrl');
/** Shared by every standard key (the limiter is per key, its settings per deployment). */
const PER_MINUTE = 120;
const BURST = 30;
const INTERVAL_MS = 60_000 / PER_MINUTE;
const RICH_CREDITS = 100;
/** A few searches' worth: these keys run dry mid-load, so reserves race at the last credits. */
const POOR_CREDITS = 1.5;

const micro = (credits: number) => Math.round(credits * 1_000_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Slot {
  replica: Replica;
  /** The wallet instance id of the replica's process: its holds carry it. */
  instanceId: string;
  /** Resolved while the replica serves; replaced by a pending gate while it is down. */
  ready: Promise<void>;
}

interface LoadKey {
  key: string;
  keyId: string;
  accountId: string;
  granted: number;
  poor: boolean;
}

interface Outcome {
  key: number;
  instanceId: string;
  channel: 'rest' | 'mcp';
  op: string;
  /** 'cut': no answer (connection reset or refused, or the MCP call failed without a result). */
  kind: 'ok' | 'no_credit' | 'limited' | 'cut' | 'unexpected';
  /** Micro-credits the answer says it charged (ok only). */
  charged: number;
  balance: number | null;
  detail?: string;
}

let walletUrl: string;
let dbName: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let wallet: Wallet;
let adminKey: string;
const slots: Slot[] = [];
const killed = new Set<string>();
const codes: Record<'EE' | 'SE', string[]> = { EE: [], SE: [] };

async function sql<R>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: walletUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as R[];
  } finally {
    await client.end();
  }
}

async function instanceOf(replica: Replica): Promise<string> {
  const rows = await sql<{ id: string }>('SELECT id FROM wallet_instances WHERE pid = $1', [
    replica.proc.pid,
  ]);
  expect(rows).toHaveLength(1);
  return rows[0]!.id;
}

async function newSlot(): Promise<Slot> {
  const replica = await startReplica(env);
  return { replica, instanceId: await instanceOf(replica), ready: Promise.resolve() };
}

async function rest(
  url: string,
  path: string,
  key: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/api/v1/data${path}`, {
    headers: { authorization: `Bearer ${key}`, ...headers },
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  if (!PG_URL) return;
  dbName = `cluster_${crypto.randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${dbName}`;
  walletUrl = url.toString();
  dataDir = linkedDataDir(inject('testDataDir'));
  env = {
    ...process.env,
    PORT: '0',
    REGDATA_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    REGDATA_WALLET_URL: walletUrl,
    REGDATA_WALLET_POOL_SIZE: '4',
    REGDATA_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
    REGDATA_RATE_LIMIT_BURST: String(BURST),
    // Sweeps often, so the dead replica's holds are voided soon after the kill, not after 30 s.
    REGDATA_WALLET_SWEEP_INTERVAL_MS: '500',
  };
  // The test's own wallet (same database) makes keys and reads the audit; it never sweeps on a timer.
  wallet = await openWallet({ url: walletUrl, sweepIntervalMs: 0, poolSize: 2 });
  adminKey = (await wallet.createKey({ email: 'ops@cluster.test', kind: 'admin' })).key;
  slots.push(...(await Promise.all([newSlot(), newSlot(), newSlot()])));
  for (const c of ['EE', 'SE'] as const) {
    const res = await rest(slots[0]!.replica.url, `/companies?country=${c}&page_size=12`, adminKey);
    codes[c] = (res.body['data'] as { items: { registrikood: string }[] }).items.map((i) => i.registrikood);
    expect(codes[c].length).toBeGreaterThan(0);
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(slots.map((s) => stopReplica(s.replica)));
  await wallet?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  if (PG_URL && dbName) {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
});

async function payg(email: string, credits: number): Promise<LoadKey> {
  const k = await wallet.createKey({ email, kind: 'standard', plan: 'payg', credits });
  return { key: k.key, keyId: k.keyId, accountId: k.accountId, granted: micro(credits), poor: credits < 10 };
}

type Op = {
  name: string;
  rest: () => string;
  mcp: () => { name: string; arguments: Record<string, unknown> };
};

const pick = (list: string[], n: number) => list[n % list.length]!;

/** Metered calls of every kind (and a free count), the same on both channels. */
function operations(n: number): Op[] {
  const ee = pick(codes.EE, n);
  const se = pick(codes.SE, n);
  return [
    {
      name: 'search',
      rest: () => `/companies?country=EE&page_size=5&page=${1 + (n % 3)}`,
      mcp: () => ({
        name: 'search_companies',
        arguments: { country: 'EE', page_size: 4, page: 1 + (n % 3) },
      }),
    },
    {
      name: 'detail',
      rest: () => `/companies/${ee}?country=EE`,
      mcp: () => ({ name: 'get_company', arguments: { country: 'EE', registration_code: ee } }),
    },
    {
      name: 'count',
      rest: () => '/count?country=EE',
      mcp: () => ({ name: 'count_companies', arguments: { country: 'EE' } }),
    },
    {
      name: 'history',
      rest: () => `/companies/${ee}/history?country=EE`,
      mcp: () => ({ name: 'get_company_history', arguments: { country: 'EE', registration_code: ee } }),
    },
    {
      name: 'workplaces',
      rest: () => `/companies/${se}/workplaces?country=SE`,
      mcp: () => ({ name: 'get_company_workplaces', arguments: { country: 'SE', registration_code: se } }),
    },
    {
      name: 'search-se',
      rest: () => `/companies?country=SE&page_size=3`,
      mcp: () => ({ name: 'search_companies', arguments: { country: 'SE', page_size: 3 } }),
    },
  ];
}

function classify(
  status: number,
  body: Record<string, unknown>,
): Omit<Outcome, 'key' | 'instanceId' | 'channel' | 'op'> {
  const meta = body['meta'] as { credits_charged?: number; credit_balance?: number } | undefined;
  if (status === 200) {
    return {
      kind: 'ok',
      charged: micro(meta?.credits_charged ?? 0),
      balance: meta?.credit_balance === undefined ? null : micro(meta.credit_balance),
    };
  }
  const detail = JSON.stringify(body);
  if (status === 402 && typeof body['detail'] === 'string')
    return { kind: 'no_credit', charged: 0, balance: null };
  if (status === 429 && typeof body['detail'] === 'string')
    return { kind: 'limited', charged: 0, balance: null };
  return { kind: 'unexpected', charged: 0, balance: null, detail: `${status} ${detail}` };
}

async function restCall(url: string, key: string, op: Op, idempotencyKey: string | null) {
  const res = await rest(url, op.rest(), key, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
  return classify(res.status, res.body);
}

async function mcpCall(client: Client, op: Op) {
  const result = (await client.callTool(op.mcp(), { timeout: 30_000 })) as CallToolResult;
  if (!result.isError) return classify(200, (result.structuredContent ?? {}) as Record<string, unknown>);
  const first = result.content[0];
  const failure =
    first?.type === 'text' ? (JSON.parse(first.text) as { status: number; detail: unknown }) : null;
  return classify(failure?.status ?? 0, { detail: failure?.detail });
}

describe.skipIf(!PG_URL)('three replicas on one PostgreSQL wallet', () => {
  it('conserves every credit through concurrent REST and MCP load and a SIGKILLed replica', async () => {
    const keys = [
      await payg('rich-1@cluster.test', RICH_CREDITS),
      await payg('rich-2@cluster.test', RICH_CREDITS),
      await payg('rich-3@cluster.test', RICH_CREDITS),
      await payg('poor-1@cluster.test', POOR_CREDITS),
      await payg('poor-2@cluster.test', POOR_CREDITS),
      await payg('poor-3@cluster.test', POOR_CREDITS),
    ];
    const outcomes: Outcome[] = [];
    /** Answers that were not a 429: what the kill and the stop wait for. */
    const answered = () => outcomes.filter((o) => o.kind === 'ok' || o.kind === 'no_credit').length;
    let stop = false;

    const worker = async (k: number, s: number, channel: 'rest' | 'mcp') => {
      const key = keys[k]!;
      let n = k * 7 + s * 3;
      let client = null as { instanceId: string; client: Client } | null;
      while (!stop) {
        const slot = slots[s]!;
        await slot.ready;
        if (stop) break;
        const { instanceId, replica } = slot;
        const op = operations(n)[n % 6]!;
        let result: Omit<Outcome, 'key' | 'instanceId' | 'channel' | 'op'>;
        try {
          // Every third REST call carries a key of its own (never retried): claims the kill must not strand.
          const idem = n % 3 === 0 ? `load-${k}-${s}-${n}` : null;
          if (channel === 'rest') result = await restCall(replica.url, key.key, op, idem);
          else {
            if (client?.instanceId !== instanceId) {
              client?.client.close().catch(() => {});
              client = { instanceId, client: await connectClient(new URL(`${replica.url}/mcp`), key.key) };
            }
            result = await mcpCall(client.client, op);
          }
        } catch (err) {
          result = { kind: 'cut', charged: 0, balance: null, detail: String(err) };
        }
        n++;
        outcomes.push({ key: k, instanceId, channel, op: op.name, ...result });
        // Paced a little: the point is concurrency at the wallet, and the restarting replica needs the CPU.
        await sleep(result.kind === 'limited' ? 250 : 10);
        // The replica is gone: wait for its restart (a worker that raced the gate may see one more refusal).
        if (result.kind === 'cut') await sleep(50);
      }
      await client?.client.close().catch(() => {});
    };

    const until = async (cond: () => boolean, what: string) => {
      for (let i = 0; i < 2400 && !cond(); i++) await sleep(50);
      if (!cond()) throw new Error(`load stalled waiting for ${what}: ${JSON.stringify(summary(outcomes))}`);
    };

    const workers: Promise<void>[] = [];
    for (let k = 0; k < keys.length; k++) {
      for (let s = 0; s < slots.length; s++) workers.push(worker(k, s, 'rest'), worker(k, s, 'mcp'));
    }
    try {
      await until(() => answered() >= 80, '80 answers before the kill');
      const victim = slots[1]!;
      let open!: () => void;
      victim.ready = new Promise((r) => (open = r));
      killed.add(victim.instanceId);
      await stopReplica(victim.replica, 'SIGKILL');
      const restarted = await newSlot();
      victim.replica = restarted.replica;
      victim.instanceId = restarted.instanceId;
      open();
      const before = answered();
      await until(
        () =>
          answered() >= before + 80 &&
          outcomes.filter((o) => o.instanceId === restarted.instanceId && o.kind !== 'cut').length >= 10,
        '80 answers after the restart, 10 of them by the restarted replica',
      );
    } finally {
      stop = true;
      await Promise.all(workers);
    }

    // Only the killed process left requests unanswered, and every other answer is a 200, 402 or 429.
    expect(outcomes.filter((o) => o.kind === 'unexpected')).toEqual([]);
    const cuts = outcomes.filter((o) => o.kind === 'cut');
    expect(cuts.filter((o) => !killed.has(o.instanceId))).toEqual([]);
    expect(cuts.length).toBeGreaterThan(0);
    expect(outcomes.some((o) => o.kind === 'no_credit' && keys[o.key]!.poor)).toBe(true);
    expect(outcomes.filter((o) => o.balance !== null && o.balance < 0)).toEqual([]);
    for (const channel of ['rest', 'mcp']) {
      expect(outcomes.some((o) => o.channel === channel && o.kind === 'ok' && o.charged > 0)).toBe(true);
    }

    // A live replica's sweeper finds the killed process gone (its pid no longer exists), voids its holds,
    // releases its claims and unregisters it, all in one sweep.
    for (let i = 0; i < 600; i++) {
      const [left] = await sql<{ n: string }>(
        `SELECT (SELECT count(*) FROM holds WHERE state = 'pending')
           + (SELECT count(*) FROM idempotency_keys WHERE state = 'in_flight')
           + (SELECT count(*) FROM wallet_instances WHERE id = ANY($1)) AS n`,
        [[...killed]],
      );
      if (left!.n === '0') break;
      await sleep(50);
    }
    expect(await sql(`SELECT id, instance_id FROM holds WHERE state = 'pending'`)).toEqual([]);
    // Voided because their process was gone: only the killed one's, and none had to wait for its timeout.
    const goneVoids = await sql<{ instance_id: string }>(
      `SELECT instance_id FROM holds WHERE void_reason = 'owner_gone'`,
    );
    expect(goneVoids.filter((h) => !killed.has(h.instance_id))).toEqual([]);
    expect(await sql(`SELECT id FROM holds WHERE void_reason = 'timeout'`)).toEqual([]);
    expect(await sql('SELECT id FROM wallet_instances WHERE id = ANY($1)', [[...killed]])).toEqual([]);
    expect(await sql(`SELECT idempotency_key FROM idempotency_keys WHERE state = 'in_flight'`)).toEqual([]);

    // Charges per (process, key) in the ledger, one number per hold, against the charges the clients saw.
    const posted = await sql<{ instance_id: string; key_id: string; charged: string }>(
      `SELECT h.instance_id, h.key_id, sum(t.amount) AS charged FROM holds h
       JOIN transfers t ON t.hold_id = h.id AND t.kind = 'post' GROUP BY h.id HAVING sum(t.amount) > 0`,
    );
    const balances = await sql<{ account_id: string; balance: string }>(
      `SELECT account_id, sum(credits_posted - debits_pending - debits_posted - debits_expired) AS balance
       FROM credit_lots GROUP BY account_id`,
    );
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      let unknownCharged = 0;
      for (const instanceId of new Set([...outcomes.map((o) => o.instanceId)])) {
        const seen = outcomes
          .filter((o) => o.key === k && o.instanceId === instanceId && o.kind === 'ok' && o.charged > 0)
          .map((o) => o.charged)
          .sort((a, b) => a - b);
        const inLedger = posted
          .filter((p) => p.key_id === key.keyId && p.instance_id === instanceId)
          .map((p) => Number(p.charged));
        // Every charge a client saw is in the ledger, once.
        const extra = [...inLedger];
        for (const c of seen) {
          const at = extra.indexOf(c);
          expect(
            at,
            `key ${k} on ${instanceId}: charge ${c} seen but not in the ledger`,
          ).toBeGreaterThanOrEqual(0);
          extra.splice(at, 1);
        }
        // A charge nobody saw belongs to a request the kill cut: at most one per cut request of this key.
        const cutHere = cuts.filter((o) => o.key === k && o.instanceId === instanceId).length;
        expect(extra.length, `key ${k} on ${instanceId}: charges nobody saw`).toBeLessThanOrEqual(cutHere);
        unknownCharged += extra.reduce((a, b) => a + b, 0);
      }
      const seenCharged = outcomes
        .filter((o) => o.key === k && o.kind === 'ok')
        .reduce((a, o) => a + o.charged, 0);
      const balance = Number(balances.find((b) => b.account_id === key.accountId)!.balance);
      expect(balance).toBeGreaterThanOrEqual(0);
      expect(balance + seenCharged + unknownCharged, `key ${k}: granted = balance + charged`).toBe(
        key.granted,
      );
    }

    const audit = await wallet.audit();
    expect(audit.accounts.filter((a) => !a.conserved)).toEqual([]);
    expect(audit).toMatchObject({ lotMismatches: [], holdMismatches: [], usageMismatches: [], openHolds: 0 });
    console.info(
      `cluster load: ${JSON.stringify(summary(outcomes))}; holds voided as their process was gone: ${goneVoids.length}`,
    );
  }, 240_000);

  it("holds one key's rate limit across the three replicas", async () => {
    const { key } = await payg('limited@cluster.test', RICH_CREDITS);
    const statuses: number[] = [];
    const started = Date.now();
    await Promise.all(
      slots.flatMap((slot) =>
        Array.from({ length: 4 }, async () => {
          for (let i = 0; i < 10; i++) {
            const res = await rest(slot.replica.url, '/count?country=EE', key);
            statuses.push(res.status);
          }
        }),
      ),
    );
    const elapsed = Date.now() - started;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    const allowed = statuses.filter((s) => s === 200).length;
    // A fresh key has a full bucket, so the first BURST decisions pass wherever they are made; after that the
    // bucket refills one request per interval, whichever replica asks (one host, one clock: no skew).
    expect(allowed).toBeGreaterThanOrEqual(BURST);
    expect(allowed).toBeLessThanOrEqual(BURST + Math.floor(elapsed / INTERVAL_MS) + 1);
    // Per-replica limiters would have let 3 × BURST through at once; the bound above stays well under it.
    expect(statuses).toHaveLength(120);
  }, 60_000);

  it('charges an idempotent retry on another replica once and answers it the same', async () => {
    const k = await payg('idem@cluster.test', 10);
    const price = micro(wallet.prices.EE);
    const search = '/companies?country=EE&page_size=5';
    const postedHolds = async () =>
      (
        await sql<{ n: string }>(
          `SELECT count(DISTINCT h.id) AS n FROM holds h JOIN transfers t ON t.hold_id = h.id AND t.kind = 'post'
           WHERE h.key_id = $1`,
          [k.keyId],
        )
      )[0]!.n;

    // Sequential: first on one replica, the retries on the other two.
    const first = await rest(slots[0]!.replica.url, search, k.key, { 'idempotency-key': 'cluster-retry-1' });
    expect(first.status).toBe(200);
    const charge = micro((first.body['meta'] as { credits_charged: number }).credits_charged);
    expect(charge).toBe(5 * price);
    for (const slot of slots.slice(1)) {
      const again = await rest(slot.replica.url, search, k.key, { 'idempotency-key': 'cluster-retry-1' });
      expect(again).toEqual(first);
    }
    expect(await postedHolds()).toBe('1');

    // At once on all three: one runs, the others wait their turn (429 while it runs) and get its answer.
    // A few rounds: a sweeper reading the key in flight just before its settle once made this charge twice.
    let raceCharges = 0;
    for (let round = 1; round <= 5; round++) {
      const race = `/companies?country=EE&page_size=4&page=${round}`;
      const answers = await Promise.all(
        slots.map(async (slot) => {
          for (let i = 0; i < 50; i++) {
            const res = await rest(slot.replica.url, race, k.key, {
              'idempotency-key': `cluster-race-${round}`,
            });
            if (res.status !== 429) return res;
            await sleep(200);
          }
          throw new Error('idempotent retry still in progress after 50 tries');
        }),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
      expect(await postedHolds()).toBe(String(1 + round));
      raceCharges += micro((answers[0]!.body['meta'] as { credits_charged: number }).credits_charged);
    }

    // MCP: the key travels in _meta; the retry goes to another replica.
    const call = {
      name: 'get_company',
      arguments: { country: 'EE', registration_code: codes.EE[0] },
      _meta: { idempotency_key: 'cluster-mcp-1' },
    };
    const results: unknown[] = [];
    for (const slot of [slots[2]!, slots[0]!]) {
      const client = await connectClient(new URL(`${slot.replica.url}/mcp`), k.key);
      try {
        const result = (await client.callTool(call)) as CallToolResult;
        expect(result.isError ?? false).toBe(false);
        results.push(result.structuredContent);
      } finally {
        await client.close();
      }
    }
    expect(results[1]).toEqual(results[0]);
    expect(await postedHolds()).toBe('7');

    const mcpCharge = micro((results[0] as { meta: { credits_charged: number } }).meta.credits_charged);
    expect(mcpCharge).toBe(price);
    const balance = (await wallet.balance({ accountId: k.accountId })).balance;
    expect(micro(balance)).toBe(k.granted - charge - raceCharges - mcpCharge);
  }, 60_000);
});

function summary(outcomes: Outcome[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) out[`${o.channel}:${o.kind}`] = (out[`${o.channel}:${o.kind}`] ?? 0) + 1;
  return out;
}

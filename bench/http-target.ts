import { Pool } from 'undici';
import { requestPath, type BenchQuery } from './workload.ts';

/**
 * What an answer said, reduced to what two implementations of the same request must agree on: the status,
 * the exact total (search) or count, the codes of the page in order, the detail's name, the history's length.
 */
export interface Answer {
  status: number;
  total?: number;
  codes?: string[];
  name?: string | null;
  periods?: number;
}

/** An HTTP server under test (the API or the PostgreSQL peer), reached through one keep-alive pool. */
export class HttpTarget {
  private readonly pool: Pool;

  constructor(
    readonly url: string,
    private readonly headers: Record<string, string>,
    connections: number,
  ) {
    this.pool = new Pool(url, { connections, pipelining: 1 });
  }

  /** Sends the request, reads the whole body (so transfer time counts), returns the status. */
  async exec(q: BenchQuery): Promise<number> {
    const res = await this.pool.request({ path: requestPath(q), method: 'GET', headers: this.headers });
    await res.body.arrayBuffer();
    return res.statusCode;
  }

  async answer(q: BenchQuery): Promise<Answer> {
    const res = await this.pool.request({ path: requestPath(q), method: 'GET', headers: this.headers });
    const text = await res.body.text();
    if (res.statusCode !== 200) return { status: res.statusCode };
    // Count is free and answers without the metered `{data, meta}` envelope (spec 4.3).
    const body = JSON.parse(text) as { data?: unknown };
    return answerOf(q, res.statusCode, q.op === 'count' ? body : body.data);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** The Answer of a response's `data` (the same shape from the API, the peer and the services). */
export function answerOf(q: BenchQuery, status: number, data: unknown): Answer {
  const d = data as Record<string, unknown>;
  switch (q.op) {
    case 'search':
      return {
        status,
        total: Number(d['total']),
        codes: (d['items'] as { registrikood: string }[]).map((r) => r.registrikood),
      };
    case 'count':
      return { status, total: Number(d['count']) };
    case 'detail':
      return { status, name: (d['arinimi'] as string | null) ?? null };
    case 'history':
      return {
        status,
        name: (d['arinimi'] as string | null) ?? null,
        periods: (d['periods'] as unknown[]).length,
      };
  }
}

/** Where two answers differ, in words; null when they agree. */
export function disagreement(a: Answer, b: Answer): string | null {
  if (a.status !== b.status) return `status ${a.status} vs ${b.status}`;
  if (a.total !== b.total) return `total ${a.total} vs ${b.total}`;
  if (a.name !== b.name) return `name ${a.name} vs ${b.name}`;
  if (a.periods !== b.periods) return `periods ${a.periods} vs ${b.periods}`;
  if ((a.codes ?? []).join(',') !== (b.codes ?? []).join(',')) {
    const i = (a.codes ?? []).findIndex((c, k) => c !== b.codes?.[k]);
    return `page differs from row ${i}: ${a.codes?.[i]} vs ${b.codes?.[i]}`;
  }
  return null;
}

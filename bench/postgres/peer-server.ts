/**
 * The PostgreSQL peer as a small HTTP server: what a user would otherwise build over PostgreSQL. It answers
 * the API's paths with the API's response shapes and request parsing (the same zod schemas), and does the
 * same work per request: search = filter + exact total + one page of the search-row fields (two statements
 * at once, as the API does), count, detail (one jsonb), history (rows). It has no authentication and no
 * wallet, which favours it. Run by the harness as a child process:
 *
 *   REGDATA_BENCH_PG_URL=postgres://... PORT=... node --import tsx bench/postgres/peer-server.ts
 */
import Fastify from 'fastify';
import pg from 'pg';
import {
  CountQueryObject,
  CountQuerySchema,
  SearchQueryObject,
  SearchQuerySchema,
} from '../../src/contract/api-schemas.ts';
import { COUNTRIES, COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { arrayParams } from '../../src/http/query-params.ts';
import { initials } from '../../src/services/companies.ts';
import { countSql, detailSql, historySql, nameSql, pageSql, type PgSql } from './queries.ts';

// Dates stay YYYY-MM-DD strings as in the API; bigint counts become numbers.
pg.types.setTypeParser(1082, (v: string) => v);
pg.types.setTypeParser(20, (v: string) => Number(v));

const pool = new pg.Pool({
  connectionString: process.env['REGDATA_BENCH_PG_URL'],
  max: Number(process.env['REGDATA_BENCH_PG_POOL'] ?? 8),
  // A runaway query must not hold the run: it answers 504 and counts as an error.
  statement_timeout: Number(process.env['REGDATA_BENCH_PG_TIMEOUT_MS'] ?? 30_000),
});
const run = async (sql: PgSql) => (await pool.query(sql.text, sql.values)).rows as Record<string, unknown>[];

const SEARCH_ARRAYS = arrayParams(SearchQueryObject);
const COUNT_ARRAYS = arrayParams(CountQueryObject);
const withArrays = (query: unknown, arrays: ReadonlySet<string>) => {
  const raw: Record<string, unknown> = { ...(query as Record<string, unknown>) };
  for (const [k, v] of Object.entries(raw)) if (arrays.has(k) && !Array.isArray(v)) raw[k] = [v];
  return raw;
};

const app = Fastify({ logger: false });

app.setErrorHandler((err: Error & { code?: string }, _req, reply) => {
  if (err.code === '57014') return reply.code(504).send({ detail: 'statement timeout' });
  return reply.code(500).send({ detail: err.message });
});

app.get('/healthz', async () => ({ status: 'ok' }));

app.get('/api/v1/data/companies', async (req, reply) => {
  const parsed = SearchQuerySchema.safeParse(withArrays(req.query, SEARCH_ARRAYS));
  if (!parsed.success) return reply.code(422).send({ detail: parsed.error.issues });
  const params = parsed.data;
  const [items, counted] = await Promise.all([run(pageSql(params)), run(countSql(params))]);
  return {
    data: {
      items,
      page: params.page,
      page_size: params.page_size,
      total: Number(counted[0]?.['n'] ?? 0),
      sort_by: params.sort_by,
      sort_dir: params.sort_dir,
    },
  };
});

app.get('/api/v1/data/count', async (req, reply) => {
  const parsed = CountQuerySchema.safeParse(withArrays(req.query, COUNT_ARRAYS));
  if (!parsed.success) return reply.code(422).send({ detail: parsed.error.issues });
  const rows = await run(countSql(parsed.data));
  return { country: parsed.data.country, count: Number(rows[0]?.['n'] ?? 0), count_mode: 'exact' };
});

/** The country and code of a lookup, or the status to answer with. */
function lookup(req: { query: unknown; params: unknown }): { country: CountryCode; code: string } | number {
  const country = (req.query as { country?: string }).country as CountryCode;
  const code = (req.params as { code: string }).code;
  if (!COUNTRY_CODES.includes(country)) return 422;
  return COUNTRIES[country].registrationCode.isValid(code) ? { country, code } : 400;
}

app.get('/api/v1/data/companies/:code', async (req, reply) => {
  const ref = lookup(req);
  if (typeof ref === 'number') return reply.code(ref).send({ detail: 'bad request' });
  const doc = (await run(detailSql(ref.country, ref.code)))[0]?.['doc'] as
    { people: { nimi: string; isiku_tyyp: string | null }[] } | undefined;
  if (!doc) return reply.code(404).send({ detail: 'not found' });
  if (ref.country === 'PL') {
    doc.people = doc.people.map((p) => (p.isiku_tyyp === 'J' ? p : { ...p, nimi: initials(p.nimi) }));
  }
  return { data: doc };
});

app.get('/api/v1/data/companies/:code/history', async (req, reply) => {
  const ref = lookup(req);
  if (typeof ref === 'number') return reply.code(ref).send({ detail: 'bad request' });
  const [company, periods] = await Promise.all([
    run(nameSql(ref.country, ref.code)),
    run(historySql(ref.country, ref.code)),
  ]);
  if (!company[0]) return reply.code(404).send({ detail: 'not found' });
  const kinds = new Set(periods.map((p) => p['granularity']));
  return {
    data: {
      registrikood: ref.code,
      arinimi: company[0]['arinimi'] ?? null,
      country: ref.country,
      granularity: kinds.size === 0 ? 'none' : kinds.size === 1 ? [...kinds][0] : 'mixed',
      periods,
    },
  };
});

const close = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.once('SIGTERM', () => void close());
process.once('SIGINT', () => void close());

await pool.query('SELECT 1');
await app.listen({ port: Number(process.env['PORT'] ?? 0), host: '127.0.0.1' });

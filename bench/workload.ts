import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { COUNTRIES, COUNTRY_CODES, type CountryCode } from '../src/contract/countries.ts';
import { filtersFor } from '../src/contract/filters.ts';
import type { TreeNode } from '../src/contract/api-schemas.ts';
import { sqlPath } from '../ingest/pipeline/sql.ts';
import { Rng } from './rng.ts';

/**
 * The filter-heavy request mix of the benchmark. Every parameter is drawn from the snapshot itself (names and
 * name fragments that exist, person names, activity and location subtrees of the real trees, ranges around
 * real quantiles, codes that exist and some that do not), with a seeded generator, so the same snapshot and
 * seed give the same requests for the API, the in-process engine and the PostgreSQL peer.
 */

/**
 * Weights per 100 requests, roughly like real use: most traffic is searches narrowed by several filters,
 * name searches first; counts drive filter UIs; details and histories follow a search.
 */
export const CLASS_WEIGHTS = {
  name: 18,
  person: 5,
  combined: 15,
  many_codes: 5,
  broad: 8,
  sorted: 10,
  later_page: 5,
  count: 12,
  detail: 10,
  detail_missing: 2,
  history: 8,
  history_missing: 2,
} as const;
export type QueryClass = keyof typeof CLASS_WEIGHTS;
export const QUERY_CLASSES = Object.keys(CLASS_WEIGHTS) as QueryClass[];

/** The classes the "search mix" target is about: every /companies search. */
export const SEARCH_CLASSES: readonly QueryClass[] = [
  'name',
  'person',
  'combined',
  'many_codes',
  'broad',
  'sorted',
  'later_page',
];

/** Lookups by registration code: what the "lookups under scan load" run times. */
export const LOOKUP_CLASSES: readonly QueryClass[] = [
  'detail',
  'detail_missing',
  'history',
  'history_missing',
];

/** Searches that scan (no index narrows them): what the scan clients of that run send. */
export const HEAVY_CLASSES: readonly QueryClass[] = ['broad', 'sorted', 'later_page', 'many_codes'];

export type Operation = 'search' | 'count' | 'detail' | 'history';
/** Query-string values: a repeatable parameter is an array (sent repeated). */
export type QueryValues = Record<string, string | string[]>;

export interface BenchQuery {
  /** Position in the workload; the same id means the same request for every target. */
  id: number;
  country: CountryCode;
  cls: QueryClass;
  op: Operation;
  /** Search/count: every parameter but `country`. Detail/history: empty. */
  params: QueryValues;
  /** Detail/history: the registration code looked up. */
  code?: string;
  /** 200, or 404 for the `*_missing` classes. */
  expect: 200 | 404;
}

export interface Workload {
  snapshotId: string;
  seed: number;
  countries: CountryCode[];
  queries: BenchQuery[];
}

/** The API path and query string of a request (the peer serves the same paths). */
export function requestPath(q: BenchQuery): string {
  const sp = new URLSearchParams({ country: q.country });
  for (const [k, v] of Object.entries(q.params)) for (const x of Array.isArray(v) ? v : [v]) sp.append(k, x);
  switch (q.op) {
    case 'search':
      return `/api/v1/data/companies?${sp}`;
    case 'count':
      return `/api/v1/data/count?${sp}`;
    case 'detail':
      return `/api/v1/data/companies/${encodeURIComponent(q.code ?? '')}?${sp}`;
    case 'history':
      return `/api/v1/data/companies/${encodeURIComponent(q.code ?? '')}/history?${sp}`;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Values picked from the snapshot

type Quantiles = Record<string, number[]>;
/** Quantile levels of QUANTILES; ranges start or end around them. */
const LEVELS = [0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99];

interface Subtree {
  codes: string[];
}

interface Picks {
  has: Set<string>;
  /** Divisions of the activity tree above real companies' activities, each as its leaf codes. */
  divisions: Subtree[];
  /** Top-level location nodes (counties) above real companies' locations, as sent (`codes`, LT `locations`). */
  counties: { param: string; values: string[] }[];
  fragments: string[];
  people: string[];
  forms: string[];
  activities: Subtree[];
  /** Location subtrees as the parameter and the values a client sends (`ehak_kood` codes, LT `locations`). */
  locations: { param: string; values: string[] }[];
  /** NO, SE: municipality names for the free-text `location` filter. */
  places: string[];
  kommuner: string[];
  employeeBands: string[];
  turnoverBands: string[];
  quantiles: Quantiles;
  dates: string[];
  codes: string[];
  historyCodes: string[];
  missingCodes: string[];
}

/** Numeric range filters and the column their quantiles come from. */
const RANGE_FILTERS: Record<string, string> = {
  annual_revenue: 'annual_revenue',
  annual_net_profit: 'annual_net_profit',
  annual_equity: 'annual_equity',
  annual_total_assets: 'annual_total_assets',
  share_capital: 'kapital_amount',
  last_quarter_turnover: 'last_quarter_turnover',
  last_4_quarters_turnover_sum: 'last_4_quarters_turnover_sum',
  last_quarter_employees: 'last_quarter_employees_number',
  last_quarter_turnover_growth_pct: 'last_quarter_turnover_growth_pct',
};

async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}
async function column(conn: DuckDBConnection, sql: string): Promise<string[]> {
  return (await rows(conn, sql)).map((r) => String(Object.values(r)[0]));
}

function leaves(node: TreeNode): string[] {
  return node.children.length === 0 ? [node.kood] : node.children.flatMap(leaves);
}

/** Path from a root to the node holding `value` (as kood, or in `codes` / `locations`), or null. */
function pathTo(nodes: TreeNode[], match: (n: TreeNode) => boolean): TreeNode[] | null {
  for (const n of nodes) {
    if (n.children.length === 0) {
      if (match(n)) return [n];
      continue;
    }
    const below = pathTo(n.children, match);
    if (below) return [n, ...below];
  }
  return null;
}

/** Words of 5+ letters cut to a 4-7 letter piece: what a user types into a name box. */
function fragmentsOf(names: string[], rng: Rng, n: number): string[] {
  const out: string[] = [];
  for (const name of names) {
    const words = name.split(/[^\p{L}\p{N}]+/u).filter((w) => [...w].length >= 5);
    const word = words.length ? rng.pick(words) : undefined;
    if (!word) continue;
    const letters = [...word];
    const len = Math.min(letters.length, 4 + rng.int(4));
    const start = rng.int(letters.length - len + 1);
    out.push(letters.slice(start, start + len).join(''));
    if (out.length >= n) break;
  }
  return out;
}

/** Valid-format codes that are not in the register: existing codes with digits changed until valid. */
async function missingCodesOf(
  conn: DuckDBConnection,
  companies: string,
  country: CountryCode,
  codes: string[],
  rng: Rng,
  n: number,
): Promise<string[]> {
  const rule = COUNTRIES[country].registrationCode;
  const candidates = new Set<string>();
  for (let tries = 0; candidates.size < n * 3 && tries < n * 2000 && codes.length; tries++) {
    const chars = [...rng.pick(codes)];
    // Leave the first three characters, which carry the ranges (SE third digit, PL zero padding).
    for (let k = 0; k < 2; k++) {
      const i = 3 + rng.int(Math.max(1, chars.length - 3));
      if (/\d/.test(chars[i] ?? '')) chars[i] = String(rng.int(10));
    }
    const code = chars.join('');
    if (rule.isValid(code) && !codes.includes(code)) candidates.add(code);
  }
  if (candidates.size === 0) return [];
  const list = [...candidates].map((c) => `'${c.replaceAll("'", "''")}'`).join(', ');
  const present = new Set(
    await column(conn, `SELECT registrikood FROM ${companies} WHERE registrikood IN (${list})`),
  );
  return [...candidates].filter((c) => !present.has(c)).slice(0, n);
}

async function pickValues(
  conn: DuckDBConnection,
  dir: string,
  country: CountryCode,
  rng: Rng,
): Promise<Picks> {
  const has = new Set<string>(filtersFor(country).map((f) => f.id));
  const file = (f: string) => `read_parquet(${sqlPath(path.join(dir, country, f))})`;
  const companies = file('companies.parquet');
  const active = `(SELECT * FROM ${companies} WHERE NOT not_for_sale AND staatus = 'R')`;
  const sample = (n: number) => `USING SAMPLE reservoir(${n} ROWS) REPEATABLE (${rng.int(1_000_000)})`;

  const names = await column(conn, `SELECT arinimi FROM ${active} WHERE arinimi IS NOT NULL ${sample(3000)}`);
  const people = has.has('person_name')
    ? await column(
        conn,
        `SELECT split_part(p.nimi, ' ', -1) FROM (SELECT unnest(people) AS p FROM ${active} ${sample(3000)})
         WHERE p.isiku_tyyp = 'F' AND length(split_part(p.nimi, ' ', -1)) >= 3`,
      )
    : [];
  const forms = await column(
    conn,
    `SELECT oiguslik_vorm FROM ${active} WHERE oiguslik_vorm IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 6`,
  );

  // Activity subtrees (division or group) above the activities real companies have.
  const activitiesJson = JSON.parse(fs.readFileSync(path.join(dir, country, 'activities.json'), 'utf8')) as {
    trees: Record<string, TreeNode[]>;
  };
  const activityTree = Object.values(activitiesJson.trees)[0] ?? [];
  const used = await column(
    conn,
    `SELECT a.kood FROM (SELECT unnest(emtak) AS a FROM ${active} ${sample(400)}) WHERE a.is_main`,
  );
  const activities: Subtree[] = [];
  const divisions = new Map<string, Subtree>();
  for (const code of used) {
    const p = pathTo(activityTree, (n) => n.kood === code);
    // Depth 1 is a section (hundreds of leaves); users pick a division (2) or a group (3).
    const node = p?.[Math.min(p.length - 1, 1 + rng.int(2))];
    if (node) activities.push({ codes: leaves(node) });
    const division = p?.[Math.min(p.length - 1, 1)];
    if (division && !divisions.has(division.kood)) divisions.set(division.kood, { codes: leaves(division) });
    if (activities.length >= 60) break;
  }

  // Location subtrees (county or municipality) above real companies' locations.
  const locationsJson = JSON.parse(fs.readFileSync(path.join(dir, country, 'locations.json'), 'utf8')) as {
    tree: TreeNode[] | null;
  };
  const locations: Picks['locations'] = [];
  const counties = new Map<string, Picks['counties'][number]>();
  const places: string[] = [];
  if (has.has('ehak_kood') || has.has('lt_locations')) {
    const lt = has.has('lt_locations');
    const param = lt ? 'lt_locations' : 'ehak_kood';
    const at = await column(
      conn,
      `SELECT ${lt ? 'ehak_nimetus' : 'ehak_kood'} FROM ${active} WHERE ${lt ? 'ehak_nimetus' : 'ehak_kood'} IS NOT NULL ${sample(200)}`,
    );
    for (const v of at) {
      const p = pathTo(locationsJson.tree ?? [], (n) => (lt ? n.locations : n.codes)?.includes(v) ?? false);
      const node = p?.[Math.min(p.length - 1, rng.int(2))];
      const values = node ? (lt ? node.locations : node.codes) : undefined;
      if (values?.length) locations.push({ param, values });
      // The root of the path is the county (maakond, LV region, LT apskritis, FI maakunta, PL voivodeship).
      const county = p?.[0];
      const countyValues = county ? (lt ? county.locations : county.codes) : undefined;
      if (county && countyValues?.length && !counties.has(county.kood))
        counties.set(county.kood, { param, values: countyValues });
      if (locations.length >= 40) break;
    }
  }
  if (has.has('location')) {
    places.push(
      ...(await column(
        conn,
        `SELECT ehak_nimetus FROM ${active} WHERE ehak_nimetus IS NOT NULL ${sample(60)}`,
      )),
    );
  }
  const kommuner = has.has('se_workplace_kommun')
    ? await column(
        conn,
        `SELECT kommun_code FROM ${file('workplaces.parquet')} WHERE is_active AND kommun_code IS NOT NULL ${sample(200)}`,
      )
    : [];
  const bands = async (col: string) =>
    column(conn, `SELECT DISTINCT ${col} FROM ${active} WHERE ${col} IS NOT NULL ORDER BY 1`);

  const quantiles: Quantiles = {};
  for (const [filter, col] of Object.entries(RANGE_FILTERS)) {
    if (!has.has(filter)) continue;
    const [r] = await rows(
      conn,
      `SELECT quantile_disc(${col}, [${LEVELS.join(', ')}]) AS q FROM ${active} WHERE ${col} IS NOT NULL`,
    );
    const q = (r?.['q'] as number[] | null) ?? [];
    if (q.length) quantiles[filter] = q.map(Number);
  }
  const [d] = await rows(
    conn,
    `SELECT quantile_disc(esmaregistreerimise_kpv, [${LEVELS.join(', ')}])::VARCHAR[] AS q FROM ${active}`,
  );
  const dates = ((d?.['q'] as string[] | null) ?? []).map(String);

  const codes = await column(
    conn,
    `SELECT registrikood FROM ${companies} WHERE NOT not_for_sale ${sample(400)}`,
  );
  const withHistory = await column(
    conn,
    `SELECT DISTINCT registrikood FROM ${file('history.parquet')} ${sample(400)}`,
  );
  return {
    has,
    divisions: [...divisions.values()],
    counties: [...counties.values()],
    fragments: fragmentsOf(names, rng, 80),
    people: [...new Set(people)].slice(0, 60),
    forms,
    activities,
    locations,
    places,
    kommuner,
    employeeBands: has.has('employees_band') ? await bands('se_employees_band') : [],
    turnoverBands: has.has('turnover_band') ? await bands('se_turnover_band') : [],
    quantiles,
    dates,
    codes,
    historyCodes: withHistory.length ? withHistory : codes,
    missingCodes: await missingCodesOf(conn, companies, country, codes, rng, 40),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Requests

/** One filter as query parameters, or null when the country lacks it or the snapshot has no value for it. */
type FilterGen = (p: Picks, rng: Rng) => QueryValues | null;

const rangeAround =
  (filter: string): FilterGen =>
  (p, rng) => {
    const q = p.quantiles[filter];
    if (!q?.length) return null;
    // Mostly "at least X" around the median and upper quantiles, sometimes a band between two quantiles.
    const i = 1 + rng.int(q.length - 2);
    const min = q[i] as number;
    if (rng.next() < 0.7) return { [`${filter}_min`]: String(min) };
    return { [`${filter}_min`]: String(min), [`${filter}_max`]: String(q[i + 1]) };
  };

const flagGen =
  (id: string, values: readonly string[] = ['true']): FilterGen =>
  (p, rng) =>
    p.has.has(id) ? { [id]: rng.pick(values) } : null;

/** Filters a user combines; each returns null where it does not apply. */
const NARROWING: FilterGen[] = [
  (p, rng) => (p.activities.length ? { industry_codes: rng.pick(p.activities).codes } : null),
  (p, rng) => {
    if (p.locations.length) {
      const l = rng.pick(p.locations);
      return { [l.param]: l.values };
    }
    return p.places.length ? { location: rng.pick(p.places) } : null;
  },
  (p, rng) => (p.forms.length ? { legal_form: rng.sample(p.forms, 1 + rng.int(2)) } : null),
  (p, rng) => (p.dates.length ? { registered_from: rng.pick(p.dates.slice(0, 5)) } : null),
  (p, rng) => (p.fragments.length ? { company_name: rng.pick(p.fragments) } : null),
  flagGen('has_email'),
  flagGen('has_phone'),
  flagGen('has_website'),
  flagGen('vat_active', ['true', 'false']),
  flagGen('has_tax_debt', ['false']),
  flagGen('has_domain'),
  flagGen('exclude_marketing_optout'),
  flagGen('annual_report_filed'),
  (p, rng) =>
    p.employeeBands.length ? { employees_band: rng.sample(p.employeeBands, 1 + rng.int(4)) } : null,
  (p, rng) =>
    p.turnoverBands.length ? { turnover_band: rng.sample(p.turnoverBands, 1 + rng.int(3)) } : null,
  (p, rng) => (p.kommuner.length ? { se_workplace_kommun: rng.sample(p.kommuner, 1 + rng.int(3)) } : null),
  ...Object.keys(RANGE_FILTERS).map(rangeAround),
];

/** Filters that match a large part of the register, so the exact total is a big count. */
const BROAD: FilterGen[] = [
  flagGen('has_email'),
  flagGen('has_phone'),
  flagGen('vat_active'),
  (p) => (p.forms.length ? { legal_form: [p.forms[0] as string] } : null),
  (p, rng) => (p.dates.length ? { registered_from: p.dates[rng.int(2)] as string } : null),
  (p) => {
    // The largest location subtree the picks hold (a county).
    const l = [...p.locations].sort((a, b) => b.values.length - a.values.length)[0];
    return l ? { [l.param]: l.values } : null;
  },
];

function combine(p: Picks, rng: Rng, gens: FilterGen[], k: number): QueryValues {
  const out: QueryValues = {};
  let added = 0;
  for (const gen of rng.shuffle([...gens])) {
    if (added >= k) break;
    const f = gen(p, rng);
    if (!f || Object.keys(f).some((key) => key in out)) continue;
    Object.assign(out, f);
    added++;
  }
  return out;
}

const revenueDesc: QueryValues = { sort_by: 'annual_revenue', sort_dir: 'desc' };

/** Sort keys a listing uses, where the country has the column. */
function sortFor(p: Picks, rng: Rng): QueryValues {
  const options: QueryValues[] = [
    { sort_by: 'company_name', sort_dir: 'asc' },
    { sort_by: 'registered_date', sort_dir: 'desc' },
  ];
  // Revenue, largest first, is the listing sales teams ask for most: twice the weight where it exists.
  if (p.has.has('annual_revenue')) options.push(...Array.from({ length: 2 }, () => revenueDesc));
  if (p.has.has('share_capital')) options.push({ sort_by: 'share_capital', sort_dir: 'desc' });
  if (p.has.has('last_quarter_turnover'))
    options.push({ sort_by: 'last_quarter_turnover', sort_dir: 'desc' });
  return rng.pick(options);
}

function makeQuery(p: Picks, country: CountryCode, cls: QueryClass, rng: Rng, id: number): BenchQuery {
  const base = { id, country, cls };
  const pageSize = () => rng.pick(['20', '50', '50', '100']);
  switch (cls) {
    case 'name': {
      const params: QueryValues = { company_name: rng.pick(p.fragments) };
      if (rng.next() < 0.3 && p.forms.length) params['legal_form'] = [rng.pick(p.forms)];
      return { ...base, op: 'search', params: { ...params, page_size: pageSize() }, expect: 200 };
    }
    case 'person':
      // LT and SE publish no people: their person-name share goes to a two-word name search.
      return p.people.length
        ? { ...base, op: 'search', params: { person_name: rng.pick(p.people) }, expect: 200 }
        : { ...base, op: 'search', params: { company_name: rng.sample(p.fragments, 2) }, expect: 200 };
    case 'combined':
      return {
        ...base,
        op: 'search',
        params: { ...combine(p, rng, NARROWING, 3 + rng.int(6)), page_size: pageSize() },
        expect: 200,
      };
    case 'many_codes': {
      // A division's leaves and a county's codes together, as a client sends them from /activities and
      // /locations. NO and SE have no location tree: a municipality name there.
      const params: QueryValues = {};
      if (p.divisions.length) params['industry_codes'] = rng.pick(p.divisions).codes;
      if (p.counties.length) {
        const c = rng.pick(p.counties);
        params[c.param] = c.values;
      } else if (p.places.length) params['location'] = rng.pick(p.places);
      return { ...base, op: 'search', params: { ...params, page_size: pageSize() }, expect: 200 };
    }
    case 'broad':
      return { ...base, op: 'search', params: combine(p, rng, BROAD, 1 + rng.int(2)), expect: 200 };
    case 'sorted':
      return {
        ...base,
        op: 'search',
        params: { ...combine(p, rng, NARROWING, rng.int(3)), ...sortFor(p, rng), page_size: pageSize() },
        expect: 200,
      };
    case 'later_page':
      return {
        ...base,
        op: 'search',
        params: {
          ...combine(p, rng, BROAD, 1),
          ...(rng.next() < 0.5 ? sortFor(p, rng) : {}),
          page: String(2 + rng.int(49)),
          page_size: rng.pick(['20', '50']),
        },
        expect: 200,
      };
    case 'count':
      return {
        ...base,
        op: 'count',
        params: rng.next() < 0.7 ? combine(p, rng, NARROWING, 1 + rng.int(6)) : combine(p, rng, BROAD, 1),
        expect: 200,
      };
    case 'detail':
      return { ...base, op: 'detail', params: {}, code: rng.pick(p.codes), expect: 200 };
    case 'history':
      return { ...base, op: 'history', params: {}, code: rng.pick(p.historyCodes), expect: 200 };
    case 'detail_missing':
    case 'history_missing':
      // A snapshot too small to hold a missing code of valid format falls back to an existing one.
      return p.missingCodes.length
        ? {
            ...base,
            op: cls === 'detail_missing' ? 'detail' : 'history',
            params: {},
            code: rng.pick(p.missingCodes),
            expect: 404,
          }
        : makeQuery(p, country, cls === 'detail_missing' ? 'detail' : 'history', rng, id);
  }
}

export interface WorkloadOptions {
  /** Number of requests. */
  requests: number;
  seed?: number;
  countries?: CountryCode[];
}

/** Builds the request list from the snapshot folder (`snapshots/<id>` with one folder per country). */
export async function buildWorkload(snapshotDir: string, options: WorkloadOptions): Promise<Workload> {
  const seed = options.seed ?? 1;
  const rng = new Rng(seed);
  const meta = JSON.parse(fs.readFileSync(path.join(snapshotDir, 'snapshot.json'), 'utf8')) as {
    snapshot_id: string;
    countries: CountryCode[];
  };
  const countries = (options.countries ?? [...COUNTRY_CODES]).filter((c) => meta.countries.includes(c));
  // One thread: DuckDB's REPEATABLE reservoir sample is reproducible only single-threaded, and the same
  // snapshot and seed must give the same workload run after run.
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await db.connect();
  const picks = {} as Record<CountryCode, Picks>;
  try {
    for (const c of countries) picks[c] = await pickValues(conn, snapshotDir, c, rng);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
  const classes = QUERY_CLASSES.flatMap((c) => Array.from({ length: CLASS_WEIGHTS[c] }, () => c));
  const queries: BenchQuery[] = [];
  for (let id = 0; id < options.requests; id++) {
    // Every country gets the same mix: countries in turn, classes drawn by weight.
    const country = countries[id % countries.length] as CountryCode;
    queries.push(makeQuery(picks[country], country, rng.pick(classes), rng, id));
  }
  return { snapshotId: meta.snapshot_id, seed, countries, queries };
}

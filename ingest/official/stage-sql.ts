import type { DuckDBConnection } from '@duckdb/node-api';
import { COMPANY_COLUMNS, HISTORY_COLUMNS } from '../../src/contract/data-contract.ts';
import { quoteIdent } from '../pipeline/sql.ts';

/**
 * The SELECT that makes stage_companies: every contract column in order, from `values` where the adapter
 * has the column, else the contract's empty value (NULL, or `[]` for the non-null list columns).
 * search_name and search_people are the search text of `arinimi` and `people` unless `values` names them.
 */
export function contractCompaniesSql(values: Readonly<Record<string, string>>, from: string): string {
  const known = new Set(COMPANY_COLUMNS.map((c) => c.name));
  for (const name of Object.keys(values)) {
    if (!known.has(name)) throw new Error(`not a contract column: ${name}`);
  }
  const { arinimi, people } = values;
  const all: Record<string, string> = {
    ...(arinimi !== undefined && { search_name: searchNameSql(arinimi) }),
    ...(people !== undefined && { search_people: searchPeopleSql(people) }),
    ...values,
  };
  const items = COMPANY_COLUMNS.map((c) => {
    const expr = all[c.name] ?? (c.type.endsWith('[]') && !c.nullable ? `[]` : 'NULL');
    return `CAST(${expr} AS ${c.type}) AS ${quoteIdent(c.name)}`;
  });
  return `CREATE OR REPLACE TEMP TABLE stage_companies AS SELECT\n  ${items.join(',\n  ')}\nFROM ${from}`;
}

/** An empty stage_history with the contract's columns, for the adapter's INSERTs in contract order. */
export async function createEmptyHistory(conn: DuckDBConnection): Promise<void> {
  const cols = HISTORY_COLUMNS.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ');
  await conn.run(`CREATE OR REPLACE TEMP TABLE stage_history (${cols})`);
}

/** SQL: the accent-free lower-case search text of the contract's search_name / search_people. */
export const searchNameSql = (expr: string): string => `lower(strip_accents(${expr}))`;
export const searchPeopleSql = (people: string): string =>
  `CASE WHEN len(${people}) > 0 THEN lower(strip_accents(array_to_string(list_transform(${people}, p -> p.nimi), ' | '))) END`;

/** emtak and people from the country's tables joined as `e` and `p` (one list per code), empty where absent. */
export const JOINED_LISTS = { emtak: 'coalesce(e.emtak, [])', people: 'coalesce(p.people, [])' };

/** The annual_* columns from a table aliased `a` with `yr`, `revenue`, `net_profit`, `equity`, `total_assets`. */
export const ANNUAL_VALUES = {
  annual_revenue: 'a.revenue',
  annual_net_profit: 'a.net_profit',
  annual_equity: 'a.equity',
  annual_total_assets: 'a.total_assets',
  annual_report_year: 'a.yr',
} as const;

/** Reader column specs that type every name VARCHAR. */
export const varchars = (names: readonly string[]): (readonly [string, 'VARCHAR'])[] =>
  names.map((n) => [n, 'VARCHAR'] as const);

/** A code table (a register's codes and their meaning) as a temp table `name(key, value)`. */
export async function createValuesTable(
  conn: DuckDBConnection,
  name: string,
  [key, value]: readonly [string, string],
  entries: Readonly<Record<string, string>>,
): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${name} (${key} VARCHAR, ${value} VARCHAR)`);
  for (const [k, v] of Object.entries(entries)) {
    await conn.run(`INSERT INTO ${name} VALUES ($k, $v)`, { k, v });
  }
}

/** A SQL string literal. */
export const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/** SQL: `expr` trimmed, NULL when blank. */
export const blankSql = (expr: string): string => `nullif(trim(${expr}), '')`;

/** SQL: a code table as a CASE over `expr`, NULL for a code it does not list. */
export function caseSql(expr: string, table: Readonly<Record<string, string>>): string {
  const whens = Object.entries(table).map(([k, v]) => `WHEN ${sqlString(k)} THEN ${sqlString(v)}`);
  return `CASE ${expr} ${whens.join(' ')} END`;
}

/** One field of each entry of a code table (`{staatus, text}` per code), as caseSql takes it. */
export function fieldOf<F extends string>(
  table: Readonly<Record<string, Readonly<Record<F, string>>>>,
  field: F,
): Record<string, string> {
  return Object.fromEntries(Object.entries(table).map(([k, v]) => [k, v[field]]));
}

/** SQL: a five-digit postcode as the country writes it, `head` digits, `sep`, the rest (`69-518`, `291 80`). */
export const postcodeSql = (expr: string, head: number, sep: string): string =>
  `CASE WHEN regexp_full_match(trim(${expr}), '\\d{5}')
    THEN substr(trim(${expr}), 1, ${head}) || ${sqlString(sep)} || substr(trim(${expr}), ${head + 1})
    ELSE ${blankSql(expr)} END`;

/** SQL: `expr` as the postcode's tokens, ` LV 1010 ` for `LV-1010`: letters and digits, one space between runs. */
const tokensSql = (expr: string): string =>
  `(' ' || trim(regexp_replace(upper(${expr}), '[^0-9A-Z]+', ' ', 'g')) || ' ')`;

/**
 * SQL: the address text with `, <postcode>` appended where the register's own text lacks the postcode, so
 * it is never written twice (LV's text already ends with `LV-1010`, NO's and FI's carry `0150 OSLO`). The
 * test compares runs of letters and digits, so separators (`LV-1010`, `291 80`) do not matter and `110115`
 * does not hold `10115`. No address, no text: a postcode alone is not an address.
 */
export const addressWithPostcodeSql = (address: string, postcode: string): string =>
  `CASE WHEN ${postcode} IS NULL OR contains(${tokensSql(address)}, ${tokensSql(postcode)}) THEN ${address}
    ELSE ${address} || ', ' || ${postcode} END`;

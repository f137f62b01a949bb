import { COMPANY_COLUMNS, HISTORY_COLUMNS } from '../../src/contract/data-contract.ts';
import { quoteIdent } from '../pipeline/sql.ts';

/**
 * The SELECT that makes stage_companies: every contract column in order, from `values` where the adapter
 * has the column, else the contract's empty value (NULL, or `[]` for the non-null list columns).
 */
export function contractCompaniesSql(values: Readonly<Record<string, string>>, from: string): string {
  const known = new Set(COMPANY_COLUMNS.map((c) => c.name));
  for (const name of Object.keys(values)) {
    if (!known.has(name)) throw new Error(`not a contract column: ${name}`);
  }
  const items = COMPANY_COLUMNS.map((c) => {
    const expr = values[c.name] ?? (c.type.endsWith('[]') && !c.nullable ? `[]` : 'NULL');
    return `CAST(${expr} AS ${c.type}) AS ${quoteIdent(c.name)}`;
  });
  return `CREATE OR REPLACE TEMP TABLE stage_companies AS SELECT\n  ${items.join(',\n  ')}\nFROM ${from}`;
}

/** The column list of stage_history, for INSERT ... SELECT in contract order. */
export const HISTORY_COLUMN_LIST = HISTORY_COLUMNS.map((c) => quoteIdent(c.name)).join(', ');

export async function createEmptyHistory(run: (sql: string) => Promise<unknown>): Promise<void> {
  const cols = HISTORY_COLUMNS.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ');
  await run(`CREATE OR REPLACE TEMP TABLE stage_history (${cols})`);
}

/** SQL: the accent-free lower-case search text of the contract's search_name / search_people. */
export const searchNameSql = (expr: string): string => `lower(strip_accents(${expr}))`;
export const searchPeopleSql = (people: string): string =>
  `CASE WHEN len(${people}) > 0 THEN lower(strip_accents(array_to_string(list_transform(${people}, p -> p.nimi), ' | '))) END`;

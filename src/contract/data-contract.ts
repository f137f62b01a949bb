import type { CountryCode } from './countries.ts';

/**
 * The data contract: the column set of every Parquet file of a snapshot, in DuckDB types. Writers (the world
 * generator, the ingest) select exactly these columns in this order with these types; the engine and the
 * audit read them by these names. Column names are the API field names (spec part 2) so a data engineer
 * finds the API's own words in any Parquet tool. docs/data-contract.md explains every column.
 *
 * Bump CONTRACT_VERSION on any change a reader could notice; manifests record it.
 */
export const CONTRACT_VERSION = '1.4.0';

export interface ColumnSpec {
  name: string;
  /** DuckDB logical type, as DESCRIBE prints it. */
  type: string;
  nullable: boolean;
  /** Countries where the column is filled; elsewhere it is always null (or an empty list). */
  countries?: readonly CountryCode[];
}

const col = (name: string, type: string, nullable = true, countries?: readonly CountryCode[]): ColumnSpec =>
  countries ? { name, type, nullable, countries } : { name, type, nullable };

export const CONTACT_TYPE = 'STRUCT(liik VARCHAR, sisu VARCHAR, "source" VARCHAR)';
export const ACTIVITY_TYPE = 'STRUCT(kood VARCHAR, label VARCHAR, is_main BOOLEAN)';
export const PERSON_TYPE =
  'STRUCT(nimi VARCHAR, isiku_tyyp VARCHAR, roll VARCHAR, roll_tekstina VARCHAR, algus_kpv DATE)';
export const PERIOD_TYPE = 'STRUCT("year" INTEGER, quarter INTEGER, "month" INTEGER, as_of DATE)';
export const LATEST_METRICS_TYPE =
  `STRUCT("year" INTEGER, quarter INTEGER, "month" INTEGER, turnover DOUBLE, employees INTEGER, ` +
  `turnover_period ${PERIOD_TYPE}, employees_period ${PERIOD_TYPE})`;
/** One changed field of a change row: its name and its value before and after, each as JSON text. */
export const CHANGE_DIFF_TYPE = 'STRUCT(field VARCHAR, "before" VARCHAR, "after" VARCHAR)[]';
export const LABELLED_CODE_TYPE = 'STRUCT(code VARCHAR, label VARCHAR)';
export const SE_REGISTER_TYPE =
  `STRUCT(export_import ${LABELLED_CODE_TYPE}, owner_category ${LABELLED_CODE_TYPE}, ` +
  `sme_class ${LABELLED_CODE_TYPE}, listing ${LABELLED_CODE_TYPE}, turnover_class ${LABELLED_CODE_TYPE}, ` +
  `activity_start_date DATE, trade_names VARCHAR[], "source" VARCHAR)`;

/**
 * Countries whose register files publish a postcode (issue 28): LT's JAR file has no postcode column. The
 * `postcode` column and filter exist for these only.
 */
export const POSTCODE_COUNTRIES: readonly CountryCode[] = ['EE', 'LV', 'NO', 'FI', 'PL', 'SE'];

/** companies.parquet: one row per register entity, every field of the search row (2.2) and detail (2.3). */
export const COMPANY_COLUMNS: readonly ColumnSpec[] = [
  col('registrikood', 'VARCHAR', false),
  col('arinimi', 'VARCHAR'),
  col('oiguslik_vorm', 'VARCHAR'),
  col('oiguslik_vorm_tekstina', 'VARCHAR'),
  col('oigusliku_vormi_alaliik', 'VARCHAR'),
  col('staatus', 'VARCHAR'),
  col('staatus_tekstina', 'VARCHAR'),
  col('source_status', 'VARCHAR'),
  col('esmaregistreerimise_kpv', 'DATE'),
  col('ehak_kood', 'VARCHAR'),
  col('ehak_nimetus', 'VARCHAR'),
  col('asukoht', 'VARCHAR'),
  col('aadress_text', 'VARCHAR'),
  col('postcode', 'VARCHAR', true, POSTCODE_COUNTRIES),
  col('last_quarter_turnover', 'DOUBLE', true, ['EE', 'LV', 'LT']),
  col('last_quarter_employees_number', 'INTEGER', true, ['EE', 'LV', 'LT', 'NO']),
  col('last_4_quarters_turnover_sum', 'DOUBLE', true, ['EE', 'LV', 'LT']),
  col('last_quarter_turnover_growth_pct', 'DOUBLE', true, ['EE', 'LV', 'LT']),
  col('kmkr_nr', 'VARCHAR'),
  col('vat_active', 'BOOLEAN'),
  col('vat_number', 'VARCHAR'),
  col('kapital', 'VARCHAR'),
  col('kapital_amount', 'DOUBLE'),
  col('kapital_currency', 'VARCHAR'),
  col('annual_revenue', 'DOUBLE', true, ['EE', 'NO', 'LV']),
  col('annual_net_profit', 'DOUBLE', true, ['EE', 'NO', 'LV']),
  col('annual_equity', 'DOUBLE', true, ['EE', 'NO', 'LV']),
  col('annual_total_assets', 'DOUBLE', true, ['EE', 'NO', 'LV']),
  col('annual_report_year', 'INTEGER', true, ['EE', 'NO', 'LV']),
  col('has_tax_debt', 'BOOLEAN', true, ['EE']),
  col('contacts', `${CONTACT_TYPE}[]`, false),
  col('registered_domains', 'VARCHAR[]', false),
  col('emtak', `${ACTIVITY_TYPE}[]`, false),
  col('people', `${PERSON_TYPE}[]`, false),
  col('latest_metrics', LATEST_METRICS_TYPE, true, ['EE', 'LV', 'LT', 'NO']),
  col('se_register', SE_REGISTER_TYPE, true, ['SE']),
  col('se_employees_band', 'INTEGER', true, ['SE']),
  col('se_turnover_band', 'INTEGER', true, ['SE']),
  col('marketing_optout', 'BOOLEAN', true, ['SE']),
  col('phone_optout', 'BOOLEAN', true, ['SE']),
  col('annual_report_filed', 'BOOLEAN', true, ['PL']),
  col('annual_report_audited', 'BOOLEAN', true, ['PL']),
  col('pl_regon', 'VARCHAR', true, ['PL']),
  col('pl_nip', 'VARCHAR', true, ['PL']),
  col('is_sole_trader', 'BOOLEAN', false),
  col('not_for_sale', 'BOOLEAN', false),
  col('search_name', 'VARCHAR'),
  col('search_people', 'VARCHAR'),
];

/** history.parquet: one row per company and period (spec 2.4). */
export const HISTORY_COLUMNS: readonly ColumnSpec[] = [
  col('registrikood', 'VARCHAR', false),
  col('period', 'VARCHAR', false),
  col('granularity', 'VARCHAR', false),
  col('year', 'INTEGER', false),
  col('quarter', 'INTEGER', false),
  col('month', 'INTEGER', false),
  col('turnover', 'DOUBLE'),
  col('employees', 'INTEGER'),
  col('state_taxes', 'DOUBLE'),
  col('labour_taxes', 'DOUBLE'),
  col('as_of', 'DATE'),
];

/** workplaces.parquet (SE only): one row per SCB workplace (CFAR), spec 2.5. */
export const WORKPLACE_COLUMNS: readonly ColumnSpec[] = [
  col('registrikood', 'VARCHAR', false),
  col('cfar_nr', 'INTEGER', false),
  col('name', 'VARCHAR', false),
  col('is_main', 'BOOLEAN', false),
  col('is_active', 'BOOLEAN', false),
  col('visit_address', 'VARCHAR'),
  col('visit_postcode', 'VARCHAR'),
  col('visit_town', 'VARCHAR'),
  col('postal_address', 'VARCHAR'),
  col('postal_code', 'VARCHAR'),
  col('postal_town', 'VARCHAR'),
  col('kommun_code', 'VARCHAR', false),
  col('kommun_name', 'VARCHAR'),
  col('activity_codes', 'VARCHAR[]', false),
  col('employees_band_code', 'INTEGER', false),
  col('phone', 'VARCHAR'),
  col('email', 'VARCHAR'),
  col('sweref99tm_n', 'DOUBLE'),
  col('sweref99tm_e', 'DOUBLE'),
  col('marketing_optout', 'BOOLEAN', false),
  col('phone_optout', 'BOOLEAN', false),
];

/**
 * changes.parquet: the change feed, one row per company for sale that was added, removed or changed at a
 * publish, with the API fields that changed; each snapshot holds the history (docs/data-contract.md).
 */
export const CHANGE_COLUMNS: readonly ColumnSpec[] = [
  col('registrikood', 'VARCHAR', false),
  col('change', 'VARCHAR', false),
  col('fields', 'VARCHAR[]', false),
  col('snapshot_id', 'VARCHAR', false),
  col('as_of', 'DATE', false),
  // Before and after of each changed field, as JSON text (the field's types differ); null on rows recorded
  // before contract 1.3.0, empty for `added` and `removed`.
  col('diff', CHANGE_DIFF_TYPE),
];

/**
 * events.parquet (contract 1.4.0, issue 31): the watchlist events of the last 30 days, one row per account
 * and company per publish, computed at publish (ingest/pipeline/events.ts). `diff` is the change row's.
 */
export const EVENT_COLUMNS: readonly ColumnSpec[] = [
  col('id', 'VARCHAR', false),
  col('account_id', 'VARCHAR', false),
  col('registrikood', 'VARCHAR', false),
  col('change', 'VARCHAR'),
  col('fields', 'VARCHAR[]', false),
  col('diff', CHANGE_DIFF_TYPE, false),
  col('watchlists', 'STRUCT(id VARCHAR, membership VARCHAR)[]', false),
  col('snapshot_id', 'VARCHAR', false),
  col('as_of', 'DATE', false),
];

export const SNAPSHOT_FILES = {
  companies: 'companies.parquet',
  changes: 'changes.parquet',
  events: 'events.parquet',
  /** `{since}`: the first day events.parquet covers (issue 31). */
  eventsMeta: 'events.json',
  history: 'history.parquet',
  workplaces: 'workplaces.parquet',
  activities: 'activities.json',
  locations: 'locations.json',
  filters: 'filters.json',
  manifest: 'manifest.json',
} as const;

/** Sort keys per file: DuckDB prunes Parquet only by row-group min/max, so order decides lookup speed. */
export const SORT_KEYS = {
  companies: ['registrikood'],
  history: ['registrikood', 'year', 'quarter', 'month', 'granularity'],
  workplaces: ['registrikood', 'is_main DESC', 'cfar_nr'],
} as const;

/** Normalised company status codes (`staatus`), the same set in every country; `source_status` keeps the register's own. */
export const STATUS_CODES = {
  R: 'Registered (active)',
  L: 'In liquidation',
  N: 'Bankrupt',
  T: 'Under reorganisation or restructuring',
  S: 'Suspended or not active',
  K: 'Deleted from the register',
} as const;
export type StatusCode = keyof typeof STATUS_CODES;
export const ACTIVE_STATUS: StatusCode = 'R';

export const CONTACT_KINDS = ['WWW', 'EMAIL', 'TEL', 'MOB', 'DOMAIN'] as const;

/** Spec 2.3 contact `source` values; null means the country's business register. */
export const CONTACT_SOURCES = ['no_subunit', 'pl_regon', 'pl_krs', 'pl_ceidg', 'own_site'] as const;

export const HISTORY_GRANULARITIES = ['monthly', 'quarterly', 'annual', 'year_to_date', 'snapshot'] as const;

/** The SCB size classes (Storleksklass efter anställda), official coding: 0 = unknown, 1 = 0 employees ... */
export const SE_EMPLOYEE_BANDS: readonly { code: number; label: string }[] = [
  { code: 0, label: 'Uppgift saknas (unknown)' },
  { code: 1, label: '0 employees' },
  { code: 2, label: '1-4 employees' },
  { code: 3, label: '5-9 employees' },
  { code: 4, label: '10-19 employees' },
  { code: 5, label: '20-49 employees' },
  { code: 6, label: '50-99 employees' },
  { code: 7, label: '100-199 employees' },
  { code: 8, label: '200-499 employees' },
  { code: 9, label: '500-999 employees' },
  { code: 10, label: '1,000-1,499 employees' },
  { code: 11, label: '1,500-1,999 employees' },
  { code: 12, label: '2,000-2,999 employees' },
  { code: 13, label: '3,000-3,999 employees' },
  { code: 14, label: '4,000-4,999 employees' },
  { code: 15, label: '5,000-9,999 employees' },
  { code: 16, label: '10,000+ employees' },
];

export interface CountryManifest {
  contract_version: string;
  snapshot_id: string;
  country: CountryCode;
  /** 'synthetic-world' for the demo generator, or the ingest's source description. */
  source: string;
  source_detail: Record<string, unknown>;
  generated_at: string;
  row_counts: { companies: number; companies_for_sale: number; history: number; workplaces: number };
  files: Record<string, { bytes: number; sha256: string }>;
  /**
   * The change feed in changes.parquet: the first day it covers and this publish's counts. Absent in
   * snapshots written before the feed existed.
   */
  changes?: { since: string; added: number; removed: number; changed: number; rows: number };
}

export function columnList(columns: readonly ColumnSpec[]): string {
  return columns.map((c) => `"${c.name}"`).join(', ');
}

/** DuckDB spells a few types differently in DESCRIBE than in CAST; compare them in one normal form. */
export function normaliseType(t: string): string {
  return t.replaceAll('"', '').replace(/\s+/g, ' ').toUpperCase();
}

/** The largest DuckDB INTEGER; a count beyond it would need BIGINT. */
const INTEGER_MAX = 2_147_483_647;

/**
 * SQL: a count (employees) as the contract's INTEGER from a DOUBLE expression, NULL unless it is a whole
 * number from 0 to INTEGER_MAX. DuckDB's own casts round (`2.5::DOUBLE::INTEGER` is 2, `TRY_CAST('2.5' AS
 * INTEGER)` is 3), which would turn a register's fractional figure into a count it never published; the
 * stage that reads one reports what this leaves out (`nulled`, with notCountSql).
 */
export const countSql = (expr: string): string =>
  `CASE WHEN ${expr} = trunc(${expr}) AND ${expr} BETWEEN 0 AND ${INTEGER_MAX} THEN CAST(${expr} AS INTEGER) END`;

/** SQL: true where countSql leaves a value of `expr` out. */
export const notCountSql = (expr: string): string => `(${expr} IS NOT NULL AND ${countSql(expr)} IS NULL)`;

/**
 * Columns whose type changed between contract versions, and how a value of the older type becomes the
 * current one (`c`: the column). 1.3.0: employee counts DOUBLE to INTEGER, by countSql, so a value the
 * 1.3.0 ingest would leave out is left out of an older file too, never rounded.
 */
const CHANGED_TYPES: Readonly<Record<string, (c: string) => string>> = {
  last_quarter_employees_number: countSql,
  employees: countSql,
  latest_metrics: (c) =>
    `CASE WHEN ${c} IS NOT NULL THEN {"year": ${c}."year", quarter: ${c}.quarter, "month": ${c}."month", ` +
    `turnover: ${c}.turnover, employees: ${countSql(`${c}.employees`)}, turnover_period: ${c}.turnover_period, ` +
    `employees_period: ${c}.employees_period} END`,
};

/**
 * The select list that reads a Parquet file written under any contract version as the current contract:
 * a column the file lacks (added since, such as postcode in 1.2.0) is NULL, and a column of an older type
 * (employee counts before 1.3.0) is converted to the contract's type. `present`: the file's column names
 * and types, as DESCRIBE prints them.
 */
export function contractColumnsSql(
  columns: readonly ColumnSpec[],
  present: ReadonlyMap<string, string>,
): string {
  return columns
    .map((c) => {
      const name = `"${c.name}"`;
      const type = present.get(c.name);
      if (type === undefined) return `NULL::${c.type} AS ${name}`;
      if (normaliseType(type) === normaliseType(c.type)) return name;
      const convert = CHANGED_TYPES[c.name];
      if (!convert) throw new Error(`${c.name} is ${type} in the file and ${c.type} in the contract`);
      return `CAST(${convert(name)} AS ${c.type}) AS ${name}`;
    })
    .join(', ');
}

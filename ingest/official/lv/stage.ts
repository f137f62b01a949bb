import { countSql, notCountSql } from '../../../src/contract/data-contract.ts';
import { queryRows } from '../../pipeline/sql.ts';
import { naceClassSql } from '../activity-codes.ts';
import {
  addressWithPostcodeSql,
  ANNUAL_VALUES,
  caseSql,
  createEmptyHistory,
  createValuesTable,
  JOINED_LISTS,
  varchars,
} from '../stage-sql.ts';
import {
  buildCompanies,
  joinsByCode,
  LATEST_METRICS_JOIN,
  naceCorrespondence,
  placeJoin,
  stageSteps,
} from '../stage-steps.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import {
  BALANCE_HEADER,
  INCOME_HEADER,
  INSOLVENCY_HEADER,
  LIQUIDATIONS_HEADER,
  LV_FILES,
  OFFICERS_HEADER,
  REGISTER_HEADER,
  STATEMENTS_HEADER,
  VAT_HEADER,
  VID_TAXES_HEADER,
} from './files.ts';

/** UR's own wording of the states register.csv and the proceeding files imply. */
export const LV_STATUS_TEXT = {
  R: 'Reģistrēts',
  L: 'Likvidācijas process',
  N: 'Maksātnespējas process',
  T: 'Tiesiskās aizsardzības process',
  K: 'Izslēgts no reģistra',
} as const;

/** Latvian labels of officers.csv `position` codes; an unknown code is shown as it is. */
export const LV_ROLE_LABELS: Readonly<Record<string, string>> = {
  BOARD_MEMBER: 'Valdes loceklis',
  CHAIR_OF_BOARD: 'Valdes priekšsēdētājs',
  DEPUTY_CHAIR_OF_BOARD: 'Valdes priekšsēdētāja vietnieks',
  COUNCIL_MEMBER: 'Padomes loceklis',
  CHAIR_OF_COUNCIL: 'Padomes priekšsēdētājs',
  PROCURATOR: 'Prokūrists',
  LIQUIDATOR: 'Likvidators',
  OWNER: 'Īpašnieks',
};

/** The lats was converted at 0.702804 LVL per euro (2014); statements before 2014 are in LVL. */
const LVL_PER_EUR = 0.702804;
/** Spec 2.4: LV history starts in 2006. */
const FIRST_HISTORY_YEAR = 2006;

/** VID publishes with ',' by one source and ';' by another: the reader takes whichever splits the header. */
const VID_DELIMITERS = [',', ';'] as const;

async function readRegister(ctx: StageContext): Promise<{ locations_from_address: number }> {
  const raw = await ctx.read('csv', {
    key: 'register',
    table: 'raw_register',
    delimiter: ';',
    header: REGISTER_HEADER,
    columns: REGISTER_HEADER.map(
      (n) => [n, n === 'registered' || n === 'terminated' ? 'DATE' : 'VARCHAR'] as const,
    ),
  });
  const register = await raw.keyRows('ingest_register', 'regcode', { checkRule: true });
  // Where `atvk` is empty or a pre-2021 code (the CSP transition table was not found in public material,
  // docs/ingest.md), the address may still name the unit: a part of it between commas that is exactly the
  // name of one unit of the served tree (`Rīga, Latgales iela 180 - 5`, `…, Rīga, LV-1010`; the republic
  // cities kept their names across the 2021 reform). A part naming two units, or none, gives nothing.
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE lv_place AS
    WITH coded AS (
      SELECT r.code, l.kood FROM ingest_register r JOIN location_leaves l ON l.kood = trim(r.atvk)
    ),
    named AS (
      SELECT p.code, l.kood
      FROM (SELECT code, unnest(string_split(address, ',')) AS part FROM ingest_register
            WHERE code NOT IN (SELECT code FROM coded)) p
        JOIN location_leaves l ON lower(l.name) = lower(trim(p.part))
    )
    SELECT code, kood, false AS from_address FROM coded
    UNION ALL
    SELECT code, min(kood), true FROM named GROUP BY code HAVING count(DISTINCT kood) = 1`);
  // What stays without a location is counted: per unmapped code, and the rows with no code at all.
  const unplaced = `code NOT IN (SELECT code FROM lv_place)`;
  await register.perCode(
    'ATVK',
    `SELECT trim(atvk) AS code, count(*) AS n FROM ingest_register
     WHERE nullif(trim(atvk), '') IS NOT NULL AND ${unplaced} GROUP BY ALL`,
  );
  await register.nulled(
    'no ATVK code and the address names no unit of the served tree (location left empty)',
    `SELECT count(*) AS n, any_value(address) AS example FROM ingest_register
     WHERE nullif(trim(atvk), '') IS NULL AND ${unplaced}`,
  );
  const [fromAddress] = await queryRows(
    ctx.conn,
    'SELECT count(*)::INTEGER AS n FROM lv_place WHERE from_address',
  );
  return { locations_from_address: Number(fromAddress?.['n'] ?? 0) };
}

/** officers.csv: the people of each company in file order (lv_people). */
async function readOfficers(ctx: StageContext): Promise<void> {
  // The reference confirms the names, not the order, so the file is read by column name.
  const officers = await ctx.read('csv', {
    key: 'officers',
    table: 'raw_officers',
    delimiter: ';',
    header: OFFICERS_HEADER,
    byName: true,
    columns: [
      ...varchars([
        'at_legal_entity_registration_number',
        'entity_type',
        'position',
        'name',
        'forename',
        'surname',
      ]),
      ['registered_on', 'DATE'],
    ],
    ifAbsent: `at_legal_entity_registration_number VARCHAR, entity_type VARCHAR, position VARCHAR, name VARCHAR,
      forename VARCHAR, surname VARCHAR, registered_on DATE`,
  });
  await officers.orphans('officer rows', { codeSql: 'trim(t.at_legal_entity_registration_number)' });
  await createValuesTable(ctx.conn, 'lv_role_labels', ['code', 'label'], LV_ROLE_LABELS);
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE lv_people AS
    SELECT trim(o.at_legal_entity_registration_number) AS code, list({
      nimi: coalesce(nullif(trim(o.name), ''), trim(coalesce(o.forename, '') || ' ' || coalesce(o.surname, ''))),
      isiku_tyyp: CASE WHEN o.entity_type = 'NATURAL_PERSON' THEN 'F' ELSE 'J' END,
      roll: o.position, roll_tekstina: coalesce(l.label, o.position), algus_kpv: o.registered_on
    } ORDER BY o.rowid) AS people
    FROM raw_officers o LEFT JOIN lv_role_labels l ON l.code = o.position GROUP BY ALL`);
}

/** An income statement or balance sheet: the statement id and the figures `keep` names, all numbers. */
const figures = (header: readonly string[], keep: readonly string[]) => ({
  delimiter: ';',
  header,
  columns: header.map((n) => [n, n === 'statement_id' || n === 'file_id' ? 'VARCHAR' : 'DOUBLE'] as const),
  keep: ['statement_id', ...keep],
  ifAbsent: ['statement_id VARCHAR', ...keep.map((k) => `${k} DOUBLE`)].join(', '),
});

/** Annual reports: the statement header file, its income statements and balance sheets (raw_*). */
async function readStatements(ctx: StageContext): Promise<void> {
  const statements = await ctx.read('csv', {
    key: 'statements',
    table: 'raw_statements',
    delimiter: ';',
    header: STATEMENTS_HEADER,
    byName: true,
    columns: [
      ...varchars(['id', 'legal_entity_registration_number', 'rounded_to_nearest', 'currency', 'created_at']),
      ['year', 'INTEGER'],
      ['year_ended_on', 'DATE'],
      ['employees', 'DOUBLE'],
    ],
    ifAbsent: `id VARCHAR, legal_entity_registration_number VARCHAR, rounded_to_nearest VARCHAR, currency VARCHAR,
      created_at VARCHAR, "year" INTEGER, year_ended_on DATE, employees DOUBLE`,
  });
  await ctx.read('csv', {
    key: 'income',
    table: 'raw_income',
    ...figures(INCOME_HEADER, ['net_turnover', 'net_income']),
  });
  await ctx.read('csv', {
    key: 'balance',
    table: 'raw_balance',
    ...figures(BALANCE_HEADER, ['total_assets', 'equity']),
  });
  await statements.orphans('statements', { codeSql: 'trim(t.legal_entity_registration_number)' });
  await statements.nulled(
    'statement in a currency other than EUR or LVL (left out)',
    `SELECT count(*) AS n, any_value(currency) AS example FROM raw_statements
     WHERE upper(trim(currency)) NOT IN ('EUR', 'LVL')`,
  );
  await statements.nulled(
    'employees is not a whole number (left empty)',
    `SELECT count(*) AS n, any_value(employees) AS example FROM raw_statements WHERE ${notCountSql('employees')}`,
  );
}

/** The statements in euro units: the annual history rows and the latest figures (lv_annual). */
async function buildFinancials({ conn }: StageContext): Promise<void> {
  // An amended filing repeats (company, year): the newest created_at wins (COLT annual_reports.ex).
  // Amounts in thousands (rounded_to_nearest) and lats (before 2014) are brought to euro units.
  await conn.run(`CREATE OR REPLACE TEMP TABLE lv_fs AS
    SELECT trim(s.legal_entity_registration_number) AS code, s."year", s.year_ended_on,
      ${countSql('s.employees')} AS employees,
      (CASE WHEN upper(trim(s.rounded_to_nearest)) = 'THOUSANDS' THEN 1000 ELSE 1 END)
        * (CASE WHEN upper(trim(s.currency)) = 'LVL' THEN 1 / ${LVL_PER_EUR} ELSE 1 END) AS k,
      upper(trim(s.currency)) = 'EUR' AND upper(trim(s.rounded_to_nearest)) <> 'THOUSANDS' AS exact,
      i.net_turnover, i.net_income, b.total_assets, b.equity
    FROM raw_statements s
      LEFT JOIN raw_income i ON trim(i.statement_id) = trim(s.id)
      LEFT JOIN raw_balance b ON trim(b.statement_id) = trim(s.id)
    WHERE upper(trim(s.currency)) IN ('EUR', 'LVL') AND s."year" IS NOT NULL
      AND trim(s.legal_entity_registration_number) IN (SELECT code FROM ingest_register)
    QUALIFY row_number() OVER (PARTITION BY trim(s.legal_entity_registration_number), s."year"
      ORDER BY s.created_at DESC NULLS LAST, s.rowid DESC) = 1`);
  const money = (col: string) => `CASE WHEN exact THEN ${col} ELSE round(${col} * k, 2) END`;
  await createEmptyHistory(conn);
  await conn.run(`INSERT INTO stage_history
    SELECT code, "year"::VARCHAR, 'annual', "year", 0, 0, ${money('net_turnover')}, employees, NULL, NULL,
      coalesce(year_ended_on, make_date("year", 12, 31))
    FROM lv_fs WHERE "year" >= ${FIRST_HISTORY_YEAR} AND (net_turnover IS NOT NULL OR employees IS NOT NULL)`);
  await conn.run(`CREATE OR REPLACE TEMP TABLE lv_annual AS
    SELECT code, "year" AS yr, ${money('net_turnover')} AS revenue, ${money('net_income')} AS net_profit,
      ${money('equity')} AS equity, ${money('total_assets')} AS total_assets
    FROM lv_fs WHERE net_turnover IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY code ORDER BY "year" DESC) = 1`);
}

/**
 * VID taxes: the main activity (NACE Rev. 2 before tax year 2024, Rev. 2.1 from it), from the newest tax
 * year whose code is usable ('?', '0000' and blanks occur) (lv_emtak).
 */
async function readTaxes(ctx: StageContext): Promise<void> {
  const taxes = await ctx.read('csv', {
    key: 'taxes',
    table: 'raw_vid',
    delimiter: VID_DELIMITERS,
    header: VID_TAXES_HEADER,
    columns: VID_TAXES_HEADER.map((n) => [n, n === 'Taksacijas_gads' ? 'INTEGER' : 'VARCHAR'] as const),
    keep: ['Registracijas_kods', 'Taksacijas_gads', 'Pamatdarbibas_NACE_kods'],
    ifAbsent: '"Registracijas_kods" VARCHAR, "Taksacijas_gads" INTEGER, "Pamatdarbibas_NACE_kods" VARCHAR',
  });
  await taxes.orphans('tax rows', { codeSql: 'trim(t."Registracijas_kods")' });
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE lv_vid_codes AS
    SELECT trim(v."Registracijas_kods") AS code, v."Taksacijas_gads" AS yr, v."Pamatdarbibas_NACE_kods" AS raw,
      CASE WHEN v."Taksacijas_gads" >= 2024 THEN coalesce(l.kood, m.kood) ELSE coalesce(m.kood, l.kood) END AS kood
    FROM raw_vid v
      LEFT JOIN activity_leaves l ON l.kood = ${naceClassSql('v."Pamatdarbibas_NACE_kods"')}
      LEFT JOIN nace_rev2 m ON m.old = ${naceClassSql('v."Pamatdarbibas_NACE_kods"')}`);
  // Per code, as written (`?`, `0000`, blanks and unknown classes); an earlier tax year's usable code is
  // then taken where there is one.
  await taxes.perCode(
    'NACE',
    `SELECT coalesce(nullif(trim(raw), ''), '(blank)') AS code, count(*) AS n FROM lv_vid_codes
     WHERE kood IS NULL AND code IN (SELECT code FROM ingest_register) GROUP BY ALL`,
  );
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE lv_emtak AS
    SELECT code, [{kood: c.kood, label: l.label, is_main: true}] AS emtak
    FROM lv_vid_codes c JOIN activity_leaves l USING (kood)
    QUALIFY row_number() OVER (PARTITION BY code ORDER BY yr DESC) = 1`);
}

/** VID's VAT payers (lv_vat); whether the file came goes into the source detail. */
async function readVat(ctx: StageContext): Promise<{ vat_file: boolean }> {
  const vat = await ctx.read('csv', {
    key: 'vat',
    table: 'raw_vat',
    delimiter: VID_DELIMITERS,
    header: VAT_HEADER,
    byName: true,
    columns: varchars(['Numurs', 'Aktivs']),
    ifAbsent: '"Numurs" VARCHAR, "Aktivs" VARCHAR',
  });
  // The number is taken as VID publishes it, never built from the registration code.
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE lv_vat AS
    SELECT regexp_replace(trim("Numurs"), '^LV', '') AS code, bool_or(lower(trim("Aktivs")) = 'ir') AS active,
      arg_max(trim("Numurs"), lower(trim("Aktivs")) = 'ir') AS numurs
    FROM raw_vat GROUP BY 1`);
  return { vat_file: vat.present };
}

/** Open insolvency and legal-protection proceedings, then liquidations: the state they imply (lv_proceedings). */
async function readProceedings(ctx: StageContext): Promise<void> {
  const byName = { delimiter: ';', byName: true } as const;
  await ctx.read('csv', {
    key: 'insolvency',
    table: 'raw_insolvency',
    ...byName,
    header: INSOLVENCY_HEADER,
    columns: varchars(['debtor_registration_number', 'proceeding_form', 'proceeding_ended_on']),
    ifAbsent: 'debtor_registration_number VARCHAR, proceeding_form VARCHAR, proceeding_ended_on VARCHAR',
  });
  await ctx.read('csv', {
    key: 'liquidations',
    table: 'raw_liquidations',
    ...byName,
    header: LIQUIDATIONS_HEADER,
    columns: varchars(['legal_entity_registration_number']),
    ifAbsent: 'legal_entity_registration_number VARCHAR',
  });
  // An open proceeding decides the state: insolvency → N, legal protection (TAP) → T; else a liquidation, L.
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE lv_proceedings AS
    SELECT trim(debtor_registration_number) AS code,
      CASE WHEN bool_or(upper(proceeding_form) LIKE '%INSOLVENCY%') THEN 'N' ELSE 'T' END AS staatus
    FROM raw_insolvency
    WHERE nullif(trim(proceeding_ended_on), '') IS NULL
      AND (upper(proceeding_form) LIKE '%INSOLVENCY%' OR upper(proceeding_form) LIKE '%LEGAL_PROTECTION%')
    GROUP BY 1`);
  await ctx.conn.run(`INSERT INTO lv_proceedings
    SELECT DISTINCT trim(legal_entity_registration_number), 'L' FROM raw_liquidations
    WHERE trim(legal_entity_registration_number) NOT IN (SELECT code FROM lv_proceedings)`);
}

/** The register's `index` is the postcode's digits (`1019`); Latvian postcodes are written `LV-1019`. */
const POSTCODE = `CASE WHEN regexp_full_match(trim(r."index"), '\\d{4}') THEN 'LV-' || trim(r."index")
  ELSE nullif(trim(r."index"), '') END`;
const CLOSED = `(r.terminated IS NOT NULL OR nullif(trim(r.closed), '') IS NOT NULL)`;
const STAATUS = `CASE WHEN ${CLOSED} THEN 'K' ELSE coalesce(pr.staatus, 'R') END`;

/** stage_companies: the contract's columns over the tables above. */
const buildLatviaCompanies = buildCompanies({
  values: {
    registrikood: 'r.code',
    arinimi: 'r.name',
    oiguslik_vorm: "nullif(trim(r.type), '')",
    oiguslik_vorm_tekstina: "nullif(trim(r.type_text), '')",
    staatus: STAATUS,
    staatus_tekstina: caseSql(STAATUS, LV_STATUS_TEXT),
    source_status: "nullif(trim(r.closed), '')",
    esmaregistreerimise_kpv: 'r.registered',
    ehak_kood: 'loc.kood',
    ehak_nimetus: 'loc.name',
    asukoht: "nullif(trim(r.address), '')",
    aadress_text: addressWithPostcodeSql("nullif(trim(r.address), '')", POSTCODE),
    postcode: POSTCODE,
    vat_active: 'coalesce(v.active, false)',
    // An IK's number would identify a private person (spec 2.2), so it is left blank.
    vat_number: `CASE WHEN coalesce(v.active, false) AND coalesce(r.type, '') <> 'IK' THEN v.numurs END`,
    ...ANNUAL_VALUES,
    ...JOINED_LISTS,
    // An IK (individuālais komersants) is a natural person trading in their own name.
    is_sole_trader: `coalesce(r.type = 'IK', false)`,
    not_for_sale: 'false',
  },
  from: `ingest_register r
    ${joinsByCode({ p: 'lv_people', a: 'lv_annual', e: 'lv_emtak', v: 'lv_vat', pr: 'lv_proceedings' })}
    ${LATEST_METRICS_JOIN}
    ${placeJoin('lv_place')}`,
  latestMetrics: true,
  // Without VID's VAT file a company's VAT state is unknown, not "not registered".
  unknownWithout: { vat: ['vat_active'] },
});

const stageLatvia = stageSteps({ register: 'Uzņēmumu reģistrs, VID', reader: 'ingest/official/lv' }, [
  naceCorrespondence(false),
  readRegister,
  readOfficers,
  readStatements,
  buildFinancials,
  readTaxes,
  readVat,
  readProceedings,
  buildLatviaCompanies,
]);

export const LV_ADAPTER: CountryAdapter = { country: 'LV', files: LV_FILES, stage: stageLatvia };

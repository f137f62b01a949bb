import type { StageResult } from '../../pipeline/publish.ts';
import {
  createActivityLeaves,
  createLocationLeaves,
  createNaceCorrespondence,
  naceClassSql,
} from '../activity-codes.ts';
import { SourceFileError } from '../errors.ts';
import { createLatestMetrics, METRIC_VALUES } from '../../pipeline/latest-metrics.ts';
import { loadCsv } from '../read-csv.ts';
import { countNulled, keyRows, rejectOrphans } from '../rows.ts';
import { contractCompaniesSql, createEmptyHistory, searchNameSql, searchPeopleSql } from '../stage-sql.ts';
import { sniffDelimiter } from '../text-file.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import { rejectPerCode } from '../unmapped.ts';
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

const varchars = (names: readonly string[]) => names.map((n) => [n, 'VARCHAR'] as const);

async function read(
  ctx: StageContext,
  key: string,
  table: string,
  spec: Omit<Parameters<typeof loadCsv>[1], 'country' | 'file' | 'display' | 'table'>,
): Promise<string | null> {
  const file = ctx.sources.one(key);
  if (!file) return null;
  const display = ctx.sources.displayName(file);
  await ctx.report.stage(
    ctx.country,
    `read ${display}`,
    () =>
      loadCsv(
        ctx.conn,
        { ...spec, country: ctx.country, file, display, table, workDir: ctx.workDir },
        ctx.report,
      ),
    (r) => r.rowsRead,
  );
  return display;
}

/** VID publishes with ',' by one source and ';' by another: take whichever splits the header right. */
function vidDelimiter(ctx: StageContext, key: string, minFields: number): string {
  const file = ctx.sources.one(key);
  if (!file) return ',';
  const delimiter = sniffDelimiter(file, [',', ';'], minFields);
  if (!delimiter) {
    throw new SourceFileError(
      ctx.sources.displayName(file),
      { line: 1, column: 1 },
      'neither "," nor ";" splits the header',
    );
  }
  return delimiter;
}

async function stageLatvia(ctx: StageContext): Promise<StageResult> {
  const { conn, reference, country, report } = ctx;
  await createActivityLeaves(conn, reference);
  await createLocationLeaves(conn, reference);
  await createNaceCorrespondence(conn, false);

  const register = (await read(ctx, 'register', 'raw_register', {
    delimiter: ';',
    header: REGISTER_HEADER,
    columns: REGISTER_HEADER.map(
      (n) => [n, n === 'registered' || n === 'terminated' ? 'DATE' : 'VARCHAR'] as const,
    ),
  }))!;
  await keyRows(conn, {
    country,
    from: 'raw_register',
    to: 'ingest_register',
    codeSql: 'regcode',
    file: register,
    report,
    checkRule: true,
  });
  // Pre-2021 ATVK codes need the CSP transition table, which was not found in public material (see
  // docs/ingest.md); such a code is nulled and counted per code.
  await rejectPerCode(conn, {
    country,
    file: register,
    report,
    classifier: 'ATVK',
    sql: `SELECT trim(atvk) AS code, count(*) AS n FROM ingest_register r
          WHERE nullif(trim(atvk), '') IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM location_leaves l WHERE l.kood = trim(r.atvk))
          GROUP BY ALL`,
  });

  // Officers: the reference confirms the names, not the order, so the file is read by column name.
  const officers = await read(ctx, 'officers', 'raw_officers', {
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
  });
  if (officers) {
    await rejectOrphans(conn, {
      country,
      table: 'raw_officers',
      codeSql: 'trim(t.at_legal_entity_registration_number)',
      file: officers,
      report,
      what: 'officer rows',
    });
  } else {
    await conn.run(`CREATE OR REPLACE TEMP TABLE raw_officers (at_legal_entity_registration_number VARCHAR,
      entity_type VARCHAR, position VARCHAR, name VARCHAR, forename VARCHAR, surname VARCHAR, registered_on DATE)`);
  }
  await conn.run(`CREATE OR REPLACE TEMP TABLE lv_role_labels (code VARCHAR, label VARCHAR)`);
  for (const [code, label] of Object.entries(LV_ROLE_LABELS)) {
    await conn.run('INSERT INTO lv_role_labels VALUES ($code, $label)', { code, label });
  }
  await conn.run(`CREATE OR REPLACE TEMP TABLE lv_people AS
    SELECT trim(o.at_legal_entity_registration_number) AS code, list({
      nimi: coalesce(nullif(trim(o.name), ''), trim(coalesce(o.forename, '') || ' ' || coalesce(o.surname, ''))),
      isiku_tyyp: CASE WHEN o.entity_type = 'NATURAL_PERSON' THEN 'F' ELSE 'J' END,
      roll: o.position, roll_tekstina: coalesce(l.label, o.position), algus_kpv: o.registered_on
    } ORDER BY o.rowid) AS people
    FROM raw_officers o LEFT JOIN lv_role_labels l ON l.code = o.position GROUP BY ALL`);

  // Annual reports: the statement header file, joined to its income statement and balance sheet.
  const statements = await read(ctx, 'statements', 'raw_statements', {
    delimiter: ';',
    header: STATEMENTS_HEADER,
    byName: true,
    columns: [
      ...varchars(['id', 'legal_entity_registration_number', 'rounded_to_nearest', 'currency', 'created_at']),
      ['year', 'INTEGER'],
      ['year_ended_on', 'DATE'],
      ['employees', 'DOUBLE'],
    ],
  });
  if (!statements) {
    await conn.run(`CREATE OR REPLACE TEMP TABLE raw_statements (id VARCHAR, legal_entity_registration_number VARCHAR,
      rounded_to_nearest VARCHAR, currency VARCHAR, created_at VARCHAR, "year" INTEGER, year_ended_on DATE,
      employees DOUBLE)`);
  }
  const income = await read(ctx, 'income', 'raw_income', {
    delimiter: ';',
    header: INCOME_HEADER,
    columns: INCOME_HEADER.map(
      (n) => [n, n === 'statement_id' || n === 'file_id' ? 'VARCHAR' : 'DOUBLE'] as const,
    ),
    keep: ['statement_id', 'net_turnover', 'net_income'],
  });
  if (!income) {
    await conn.run(
      'CREATE OR REPLACE TEMP TABLE raw_income (statement_id VARCHAR, net_turnover DOUBLE, net_income DOUBLE)',
    );
  }
  const balance = await read(ctx, 'balance', 'raw_balance', {
    delimiter: ';',
    header: BALANCE_HEADER,
    columns: BALANCE_HEADER.map(
      (n) => [n, n === 'statement_id' || n === 'file_id' ? 'VARCHAR' : 'DOUBLE'] as const,
    ),
    keep: ['statement_id', 'total_assets', 'equity'],
  });
  if (!balance) {
    await conn.run(
      'CREATE OR REPLACE TEMP TABLE raw_balance (statement_id VARCHAR, total_assets DOUBLE, equity DOUBLE)',
    );
  }
  if (statements) {
    await rejectOrphans(conn, {
      country,
      table: 'raw_statements',
      codeSql: 'trim(t.legal_entity_registration_number)',
      file: statements,
      report,
      what: 'statements',
    });
    await countNulled(conn, {
      country,
      file: statements,
      report,
      reason: 'statement in a currency other than EUR or LVL (left out)',
      sql: `SELECT count(*) AS n, any_value(currency) AS example FROM raw_statements
            WHERE upper(trim(currency)) NOT IN ('EUR', 'LVL')`,
    });
  }
  // An amended filing repeats (company, year): the newest created_at wins (COLT annual_reports.ex).
  // Amounts in thousands (rounded_to_nearest) and lats (before 2014) are brought to euro units.
  await conn.run(`CREATE OR REPLACE TEMP TABLE lv_fs AS
    SELECT trim(s.legal_entity_registration_number) AS code, s."year", s.year_ended_on, s.employees,
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

  // VID taxes: the main activity (NACE Rev. 2 before tax year 2024, Rev. 2.1 from it), from the newest
  // tax year whose code is usable ('?', '0000' and blanks occur).
  const taxes = await read(ctx, 'taxes', 'raw_vid', {
    delimiter: vidDelimiter(ctx, 'taxes', VID_TAXES_HEADER.length),
    header: VID_TAXES_HEADER,
    columns: VID_TAXES_HEADER.map((n) => [n, n === 'Taksacijas_gads' ? 'INTEGER' : 'VARCHAR'] as const),
    keep: ['Registracijas_kods', 'Taksacijas_gads', 'Pamatdarbibas_NACE_kods'],
  });
  if (taxes) {
    await rejectOrphans(conn, {
      country,
      table: 'raw_vid',
      codeSql: 'trim(t."Registracijas_kods")',
      file: taxes,
      report,
      what: 'tax rows',
    });
  } else {
    await conn.run(`CREATE OR REPLACE TEMP TABLE raw_vid ("Registracijas_kods" VARCHAR, "Taksacijas_gads" INTEGER,
      "Pamatdarbibas_NACE_kods" VARCHAR)`);
  }
  await conn.run(`CREATE OR REPLACE TEMP TABLE lv_vid_codes AS
    SELECT trim(v."Registracijas_kods") AS code, v."Taksacijas_gads" AS yr, v."Pamatdarbibas_NACE_kods" AS raw,
      CASE WHEN v."Taksacijas_gads" >= 2024 THEN coalesce(l.kood, m.kood) ELSE coalesce(m.kood, l.kood) END AS kood
    FROM raw_vid v
      LEFT JOIN activity_leaves l ON l.kood = ${naceClassSql('v."Pamatdarbibas_NACE_kods"')}
      LEFT JOIN nace_rev2 m ON m.old = ${naceClassSql('v."Pamatdarbibas_NACE_kods"')}`);
  if (taxes) {
    // Per code, as written (`?`, `0000`, blanks and unknown classes); an earlier tax year's usable code is
    // then taken where there is one.
    await rejectPerCode(conn, {
      country,
      file: taxes,
      report,
      classifier: 'NACE',
      sql: `SELECT coalesce(nullif(trim(raw), ''), '(blank)') AS code, count(*) AS n FROM lv_vid_codes
            WHERE kood IS NULL AND code IN (SELECT code FROM ingest_register) GROUP BY ALL`,
    });
  }
  await conn.run(`CREATE OR REPLACE TEMP TABLE lv_emtak AS
    SELECT code, [{kood: c.kood, label: l.label, is_main: true}] AS emtak
    FROM lv_vid_codes c JOIN activity_leaves l USING (kood)
    QUALIFY row_number() OVER (PARTITION BY code ORDER BY yr DESC) = 1`);

  // Optional files: VAT payers, insolvency proceedings, liquidations (read by name; see files.ts).
  const hasVat = ctx.sources.one('vat') !== null;
  await conn.run('CREATE OR REPLACE TEMP TABLE lv_vat (code VARCHAR, active BOOLEAN, numurs VARCHAR)');
  if (hasVat) {
    await read(ctx, 'vat', 'raw_vat', {
      delimiter: vidDelimiter(ctx, 'vat', 2),
      header: VAT_HEADER,
      byName: true,
      columns: varchars(['Numurs', 'Aktivs']),
    });
    // The number is taken as VID publishes it, never built from the registration code.
    await conn.run(`INSERT INTO lv_vat
      SELECT regexp_replace(trim("Numurs"), '^LV', '') AS code, bool_or(lower(trim("Aktivs")) = 'ir'),
        arg_max(trim("Numurs"), lower(trim("Aktivs")) = 'ir')
      FROM raw_vat GROUP BY 1`);
  }
  await conn.run('CREATE OR REPLACE TEMP TABLE lv_proceedings (code VARCHAR, staatus VARCHAR)');
  if (ctx.sources.one('insolvency')) {
    await read(ctx, 'insolvency', 'raw_insolvency', {
      delimiter: ';',
      header: INSOLVENCY_HEADER,
      byName: true,
      columns: varchars(['debtor_registration_number', 'proceeding_form', 'proceeding_ended_on']),
    });
    // An open proceeding decides the state: insolvency → N, legal protection (TAP) → T.
    await conn.run(`INSERT INTO lv_proceedings
      SELECT trim(debtor_registration_number),
        CASE WHEN bool_or(upper(proceeding_form) LIKE '%INSOLVENCY%') THEN 'N' ELSE 'T' END
      FROM raw_insolvency
      WHERE nullif(trim(proceeding_ended_on), '') IS NULL
        AND (upper(proceeding_form) LIKE '%INSOLVENCY%' OR upper(proceeding_form) LIKE '%LEGAL_PROTECTION%')
      GROUP BY 1`);
  }
  if (ctx.sources.one('liquidations')) {
    await read(ctx, 'liquidations', 'raw_liquidations', {
      delimiter: ';',
      header: LIQUIDATIONS_HEADER,
      byName: true,
      columns: varchars(['legal_entity_registration_number']),
    });
    await conn.run(`INSERT INTO lv_proceedings
      SELECT DISTINCT trim(legal_entity_registration_number), 'L' FROM raw_liquidations
      WHERE trim(legal_entity_registration_number) NOT IN (SELECT code FROM lv_proceedings)`);
  }

  await report.stage(country, 'build companies', async () => {
    await createLatestMetrics(conn);
    const closed = `(r.terminated IS NOT NULL OR nullif(trim(r.closed), '') IS NOT NULL)`;
    const staatus = `CASE WHEN ${closed} THEN 'K' ELSE coalesce(pr.staatus, 'R') END`;
    const statusText = `CASE ${staatus} ${Object.entries(LV_STATUS_TEXT)
      .map(([k, v]) => `WHEN '${k}' THEN '${v}'`)
      .join(' ')} END`;
    await conn.run(
      contractCompaniesSql(
        {
          registrikood: 'r.code',
          arinimi: 'r.name',
          oiguslik_vorm: "nullif(trim(r.type), '')",
          oiguslik_vorm_tekstina: "nullif(trim(r.type_text), '')",
          staatus,
          staatus_tekstina: statusText,
          source_status: "nullif(trim(r.closed), '')",
          esmaregistreerimise_kpv: 'r.registered',
          ehak_kood: 'loc.kood',
          ehak_nimetus: 'loc.name',
          asukoht: "nullif(trim(r.address), '')",
          aadress_text: `nullif(trim(r.address), '') || coalesce(', LV-' || nullif(trim(r."index"), ''), '')`,
          vat_active: hasVat ? 'coalesce(v.active, false)' : 'NULL',
          // An IK's number would identify a private person (spec 2.2), so it is left blank.
          vat_number: `CASE WHEN coalesce(v.active, false) AND coalesce(r.type, '') <> 'IK' THEN v.numurs END`,
          annual_revenue: 'a.revenue',
          annual_net_profit: 'a.net_profit',
          annual_equity: 'a.equity',
          annual_total_assets: 'a.total_assets',
          annual_report_year: 'a.yr',
          emtak: 'coalesce(e.emtak, [])',
          people: 'coalesce(p.people, [])',
          // An IK (individuālais komersants) is a natural person trading in their own name.
          is_sole_trader: `coalesce(r.type = 'IK', false)`,
          not_for_sale: 'false',
          search_name: searchNameSql('r.name'),
          search_people: searchPeopleSql('coalesce(p.people, [])'),
          ...METRIC_VALUES,
        },
        `ingest_register r
         LEFT JOIN lv_people p USING (code)
         LEFT JOIN lv_annual a USING (code)
         LEFT JOIN lv_emtak e USING (code)
         LEFT JOIN lv_vat v USING (code)
         LEFT JOIN lv_proceedings pr USING (code)
         LEFT JOIN stage_latest_metrics m ON m.registrikood = r.code
         LEFT JOIN location_leaves loc ON loc.kood = trim(r.atvk)`,
      ),
    );
  });
  return {
    source: 'official-files',
    sourceDetail: { register: 'Uzņēmumu reģistrs, VID', reader: 'ingest/official/lv', vat_file: hasVat },
  };
}

export const LV_ADAPTER: CountryAdapter = { country: 'LV', files: LV_FILES, stage: stageLatvia };

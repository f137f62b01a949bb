import { fileURLToPath } from 'node:url';
import type { StageResult } from '../../pipeline/publish.ts';
import { createActivityLeaves, createEmtakCorrespondence, createLocationLeaves } from '../activity-codes.ts';
import { createLatestMetrics, METRIC_VALUES } from '../../pipeline/latest-metrics.ts';
import { loadCsv } from '../read-csv.ts';
import { loadJson } from '../read-json.ts';
import { countNulled, keyRows, rejectOrphans } from '../rows.ts';
import { contractCompaniesSql, createEmptyHistory, searchNameSql, searchPeopleSql } from '../stage-sql.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import { rejectPerCode } from '../unmapped.ts';
import { sqlPath } from '../../pipeline/sql.ts';
import {
  DEBTORS_HEADER,
  EE_FILES,
  ELEMENTS,
  ELEMENTS_HEADER,
  EMTA_TAXES_HEADER,
  LIHTANDMED_HEADER,
  REPORTS_HEADER,
} from './files.ts';

/** RIK roles that make a person one of the company's publicly registered representatives (VAKU BOARD_ROLES). */
export const EE_BOARD_ROLES = ['JUHL', 'JUHE', 'JUHT', 'TEGJ', 'PROK'] as const;
/** RIK status codes (registry-formats.md 1.1a) onto the contract's: the same letters. */
const STATUS_SQL = `CASE trim(ettevotja_staatus) WHEN 'R' THEN 'R' WHEN 'L' THEN 'L' WHEN 'N' THEN 'N'
  WHEN 'K' THEN 'K' END`;
const ET_DATE = '%d.%m.%Y';

/** EE legal forms: the ISO 20275 ELF list's Estonian rows (data/SOURCES.md), local name → abbreviation. */
const EE_LEGAL_FORMS_FILE = fileURLToPath(new URL('../data/ee_legal_forms_iso20275.csv', import.meta.url));
/** The ISO 20275 ELF list's header (data/ee_legal_forms_iso20275.csv). */
const ELF_COLUMNS = [
  'ELF Code',
  'Country of formation',
  'Country Code (ISO 3166-1)',
  'Jurisdiction of formation',
  'Country sub-division code (ISO 3166-2)',
  'Entity Legal Form name Local name',
  'Language',
  'Language Code (ISO 639-1)',
  'Entity Legal Form name Transliterated name (per ISO 01-140-10)',
  'Abbreviations Local language',
  'Abbreviations transliterated',
  'Date created YYYY-MM-DD (ISO 8601)',
  'ELF Status ACTV/INAC',
  'Modification',
  'Modification date YYYY-MM-DD (ISO 8601)',
  'Reason',
] as const;

const varchars = (names: readonly string[]) => names.map((n) => [n, 'VARCHAR'] as const);

async function loadRegister(ctx: StageContext): Promise<void> {
  const { conn, country, report, sources } = ctx;
  const file = sources.one('lihtandmed')!;
  const display = sources.displayName(file);
  await report.stage(
    country,
    'read lihtandmed',
    () =>
      loadCsv(
        conn,
        {
          country,
          workDir: ctx.workDir,
          file,
          display,
          table: 'raw_lihtandmed',
          delimiter: ';',
          header: LIHTANDMED_HEADER,
          columns: LIHTANDMED_HEADER.map(
            (n) => [n, n === 'ettevotja_esmakande_kpv' ? 'DATE' : 'VARCHAR'] as const,
          ),
          dateFormat: ET_DATE,
        },
        report,
      ),
    (r) => r.rowsRead,
  );
  await keyRows(conn, {
    country,
    from: 'raw_lihtandmed',
    to: 'ingest_register',
    codeSql: 'ariregistri_kood',
    file: display,
    report,
    checkRule: true,
  });
  await countNulled(conn, {
    country,
    file: display,
    report,
    reason: 'status code not one of R, L, N, K (row kept, status S)',
    sql: `SELECT count(*) AS n, any_value(ettevotja_staatus) AS example FROM ingest_register WHERE ${STATUS_SQL} IS NULL`,
  });
  // No EHAK change table was found in public material (docs/ingest.md), so a code of another EHAK edition
  // than the served tree's is nulled and counted per code.
  await rejectPerCode(conn, {
    country,
    file: display,
    report,
    classifier: 'EHAK',
    sql: `SELECT trim(asukoha_ehak_kood) AS code, count(*) AS n FROM ingest_register r
          WHERE nullif(trim(asukoha_ehak_kood), '') IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM location_leaves l WHERE l.kood = trim(r.asukoha_ehak_kood))
          GROUP BY ALL`,
  });
  // The legal form as lihtandmed writes it (`Osaühing`) onto the code list's abbreviation (`OÜ`).
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_legal_forms AS
    SELECT "Entity Legal Form name Local name" AS tekst, nullif("Abbreviations Local language", '') AS kood
    FROM read_csv(${sqlPath(EE_LEGAL_FORMS_FILE)}, header = true, auto_detect = false, delim = ',', quote = '"',
      columns = {${ELF_COLUMNS.map((c) => `'${c}': 'VARCHAR'`).join(', ')}})
    WHERE "Country Code (ISO 3166-1)" = 'EE' AND "ELF Status ACTV/INAC" = 'ACTV'`);
  await rejectPerCode(conn, {
    country,
    file: display,
    report,
    classifier: 'legal form',
    sql: `SELECT trim(ettevotja_oiguslik_vorm) AS code, count(*) AS n FROM ingest_register r
          WHERE nullif(trim(ettevotja_oiguslik_vorm), '') IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM ee_legal_forms f WHERE f.tekst = trim(r.ettevotja_oiguslik_vorm)
              AND f.kood IS NOT NULL)
          GROUP BY ALL`,
  });
}

/** The parts of a yldandmed record the build reads; an absent file leaves the tables empty with this shape. */
const GENERAL_TYPE = `STRUCT(oiguslik_vorm VARCHAR,
  sidevahendid STRUCT(liik VARCHAR, sisu VARCHAR, lopp_kpv VARCHAR)[],
  teatatud_tegevusalad STRUCT(emtak_kood VARCHAR, emtak_versioon VARCHAR, on_pohitegevusala VARCHAR,
    lopp_kpv VARCHAR)[],
  kapitalid STRUCT(kapitali_suurus VARCHAR, kapitali_valuuta VARCHAR, lopp_kpv VARCHAR)[])`;

async function loadGeneral(ctx: StageContext): Promise<void> {
  const { conn, country, report, sources } = ctx;
  const file = sources.one('yldandmed');
  if (!file) {
    await conn.run(`CREATE OR REPLACE TEMP TABLE ee_general (code VARCHAR, yldandmed ${GENERAL_TYPE})`);
    await conn.run(
      'CREATE OR REPLACE TEMP TABLE ee_emtak (code VARCHAR, emtak STRUCT(kood VARCHAR, label VARCHAR, is_main BOOLEAN)[])',
    );
    return;
  }
  const display = sources.displayName(file);
  // Scalars the register writes as numbers or strings are read as VARCHAR (see loadJson).
  await report.stage(
    country,
    'read yldandmed',
    () =>
      loadJson(
        conn,
        {
          country,
          file,
          display,
          table: 'raw_yldandmed',
          columns: [
            ['ariregistri_kood', 'VARCHAR'],
            ['yldandmed', GENERAL_TYPE],
          ],
        },
        report,
      ),
    (r) => r.rowsRead,
  );
  await keyRows(conn, {
    country,
    from: 'raw_yldandmed',
    to: 'ee_general',
    codeSql: 'ariregistri_kood',
    file: display,
    report,
  });
  await rejectOrphans(conn, {
    country,
    table: 'ee_general',
    codeSql: 't.code',
    file: display,
    report,
    what: 'general data',
  });

  // Activities: current entries only (lopp_kpv empty); EMTAK 2008 codes (version 2) mapped to EMTAK 2025.
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_acts_raw AS
    SELECT code, generate_subscripts(yldandmed.teatatud_tegevusalad, 1) AS ord,
      unnest(yldandmed.teatatud_tegevusalad) AS a
    FROM ee_general`);
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_acts AS
    SELECT r.code, r.ord, trim(r.a.emtak_kood) AS raw_code, r.a.emtak_versioon AS version,
      coalesce(lower(r.a.on_pohitegevusala) IN ('true', '1', 'jah'), false) AS is_main,
      CASE WHEN trim(r.a.emtak_versioon) = '2' THEN m.kood ELSE l.kood END AS kood
    FROM ee_acts_raw r
      LEFT JOIN ee_emtak2008 m ON m.old = trim(r.a.emtak_kood)
      LEFT JOIN activity_leaves l ON l.kood = trim(r.a.emtak_kood)
    WHERE nullif(trim(r.a.lopp_kpv), '') IS NULL`);
  await rejectPerCode(conn, {
    country,
    file: display,
    report,
    classifier: 'EMTAK',
    sql: `SELECT raw_code || ' (version ' || coalesce(trim(version), '?') || ')' AS code, count(*) AS n
          FROM ee_acts WHERE kood IS NULL AND nullif(raw_code, '') IS NOT NULL GROUP BY ALL`,
  });
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_emtak AS
    SELECT code, list({kood: a.kood, label: l.label, is_main: a.is_main} ORDER BY a.ord) AS emtak
    FROM (SELECT * FROM ee_acts WHERE kood IS NOT NULL QUALIFY row_number() OVER (PARTITION BY code, kood ORDER BY ord) = 1) a
      JOIN activity_leaves l USING (kood)
    GROUP BY code`);
}

async function loadPeople(ctx: StageContext): Promise<void> {
  const { conn, country, report, sources } = ctx;
  const file = sources.one('persons');
  if (!file) {
    await conn.run(`CREATE OR REPLACE TEMP TABLE ee_people (code VARCHAR, people STRUCT(nimi VARCHAR,
      isiku_tyyp VARCHAR, roll VARCHAR, roll_tekstina VARCHAR, algus_kpv DATE)[])`);
    return;
  }
  const display = sources.displayName(file);
  // Personal codes (isikukood_registrikood, isikukood_hash) are never read: the contract forbids them.
  await report.stage(
    country,
    'read kaardile_kantud_isikud',
    () =>
      loadJson(
        conn,
        {
          country,
          file,
          display,
          table: 'raw_persons',
          columns: [
            ['ariregistri_kood', 'VARCHAR'],
            [
              'kaardile_kantud_isikud',
              `STRUCT(isiku_tyyp VARCHAR, isiku_roll VARCHAR, isiku_roll_tekstina VARCHAR, eesnimi VARCHAR,
              nimi_arinimi VARCHAR, algus_kpv VARCHAR, lopp_kpv VARCHAR)[]`,
            ],
          ],
        },
        report,
      ),
    (r) => r.rowsRead,
  );
  await keyRows(conn, {
    country,
    from: 'raw_persons',
    to: 'ee_persons',
    codeSql: 'ariregistri_kood',
    file: display,
    report,
  });
  const roles = EE_BOARD_ROLES.map((r) => `'${r}'`).join(', ');
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_people AS
    SELECT code, list_transform(
      list_filter(kaardile_kantud_isikud, p -> nullif(trim(p.lopp_kpv), '') IS NULL AND p.isiku_roll IN (${roles})),
      p -> {nimi: trim(coalesce(nullif(trim(p.eesnimi), '') || ' ', '') || trim(p.nimi_arinimi)),
            isiku_tyyp: CASE WHEN p.isiku_tyyp = 'F' THEN 'F' ELSE 'J' END, roll: p.isiku_roll,
            roll_tekstina: p.isiku_roll_tekstina, algus_kpv: try_strptime(p.algus_kpv, '${ET_DATE}')::DATE}) AS people
    FROM ee_persons`);
}

async function loadTaxes(ctx: StageContext): Promise<void> {
  const { conn, country, report, sources } = ctx;
  await createEmptyHistory((sql) => conn.run(sql));
  const file = sources.one('taxes');
  if (!file) return;
  const display = sources.displayName(file);
  const types = EMTA_TAXES_HEADER.map(
    (n, i) => [n, i === 6 ? 'INTEGER' : i > 6 ? 'DOUBLE' : 'VARCHAR'] as const,
  );
  await report.stage(
    country,
    'read EMTA taxes',
    () =>
      loadCsv(
        conn,
        {
          country,
          workDir: ctx.workDir,
          file,
          display,
          table: 'raw_taxes',
          delimiter: ',',
          header: EMTA_TAXES_HEADER,
          // The Estonian-header original has the same 23 columns in the same order; its labels are unconfirmed.
          acceptHeader: (found) => found[1] === 'Registrikood',
          columns: types,
          keep: EMTA_TAXES_HEADER.filter((_, i) => i === 1 || i >= 6),
        },
        report,
      ),
    (r) => r.rowsRead,
  );
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_taxes AS
    SELECT *, trim("Registry code") AS code FROM raw_taxes
    QUALIFY row_number() OVER (PARTITION BY trim("Registry code"), "Year" ORDER BY rowid) = 1`);
  const dupes = Number(
    (
      await conn.runAndReadAll('SELECT (SELECT count(*) FROM raw_taxes) - (SELECT count(*) FROM ee_taxes)')
    ).getRows()[0]?.[0] ?? 0,
  );
  report.reject(country, display, 'duplicate company and year (first kept)', dupes, 'row dropped');
  await rejectOrphans(conn, {
    country,
    table: 'ee_taxes',
    codeSql: 't.code',
    file: display,
    report,
    what: 'tax rows',
  });

  const quarter = (q: number, roman: string) => `
    SELECT code, "Year" AS y, ${q} AS q, "Turnover ${roman} qtr" AS turnover,
      "Number of employees ${roman} qtr" AS employees, "State taxes ${roman} qtr" AS state_taxes,
      "Labour taxes and payments ${roman} qtr" AS labour_taxes
    FROM ee_taxes`;
  await conn.run(`INSERT INTO stage_history
    SELECT code, y::VARCHAR || '-Q' || q::VARCHAR, 'quarterly', y, q, 0, turnover, employees, state_taxes,
      labour_taxes, last_day(make_date(y, q * 3, 1))
    FROM (${quarter(1, 'I')} UNION ALL ${quarter(2, 'II')} UNION ALL ${quarter(3, 'III')} UNION ALL ${quarter(4, 'IV')}) t
    WHERE y IS NOT NULL AND code IN (SELECT code FROM ingest_register)
      AND (turnover IS NOT NULL OR employees IS NOT NULL OR state_taxes IS NOT NULL OR labour_taxes IS NOT NULL)`);
}

/** False when the debtor list is absent: has_tax_debt is then unknown (NULL), not false. */
async function loadDebtors(ctx: StageContext): Promise<boolean> {
  const { conn, country, report, sources } = ctx;
  const file = sources.one('debtors');
  if (!file) {
    await conn.run('CREATE OR REPLACE TEMP TABLE ee_debtors (code VARCHAR)');
    return false;
  }
  const display = sources.displayName(file);
  await report.stage(
    country,
    'read tax debtors',
    () =>
      loadCsv(
        conn,
        {
          country,
          workDir: ctx.workDir,
          file,
          display,
          table: 'raw_debtors',
          delimiter: ';',
          header: DEBTORS_HEADER,
          columns: varchars(DEBTORS_HEADER),
          keep: ['Registrikood'],
        },
        report,
      ),
    (r) => r.rowsRead,
  );
  await keyRows(conn, {
    country,
    from: 'raw_debtors',
    to: 'ee_debtors',
    codeSql: '"Registrikood"',
    file: display,
    report,
  });
  await rejectOrphans(conn, {
    country,
    table: 'ee_debtors',
    codeSql: 't.code',
    file: display,
    report,
    what: 'debtor rows',
  });
  return true;
}

async function loadAnnualReports(ctx: StageContext): Promise<void> {
  const { conn, country, report, sources } = ctx;
  const file = sources.one('reports');
  if (!file) {
    await conn.run(`CREATE OR REPLACE TEMP TABLE ee_annual (code VARCHAR, yr INTEGER, revenue DOUBLE,
      net_profit DOUBLE, equity DOUBLE, total_assets DOUBLE)`);
    return;
  }
  const display = sources.displayName(file);
  await report.stage(
    country,
    'read annual reports',
    () =>
      loadCsv(
        conn,
        {
          country,
          workDir: ctx.workDir,
          file,
          display,
          table: 'raw_reports',
          delimiter: ';',
          header: REPORTS_HEADER,
          columns: REPORTS_HEADER.map((n) => [n, n === 'aruandeaasta' ? 'INTEGER' : 'VARCHAR'] as const),
          keep: [
            'report_id',
            'taidetud_aruanne_report_id',
            'registrikood',
            'aruandeaasta',
            'kas konsolideeritud?',
            'esitatud_kpv',
          ],
        },
        report,
      ),
    (r) => r.rowsRead,
  );
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE raw_elements (report_id VARCHAR, elemendi_nimetus VARCHAR, vaartus VARCHAR)`,
  );
  for (const [i, elements] of sources.many('elements').entries()) {
    const name = sources.displayName(elements);
    await report.stage(
      country,
      `read ${name}`,
      () =>
        loadCsv(
          conn,
          {
            country,
            workDir: ctx.workDir,
            file: elements,
            display: name,
            table: `raw_elements_${i}`,
            delimiter: ';',
            header: ELEMENTS_HEADER,
            columns: varchars(ELEMENTS_HEADER),
            keep: ['report_id', 'elemendi_nimetus', 'vaartus'],
          },
          report,
        ),
      (r) => r.rowsRead,
    );
    await conn.run(`INSERT INTO raw_elements SELECT * FROM raw_elements_${i}`);
    await conn.run(`DROP TABLE raw_elements_${i}`);
  }
  // The latest non-consolidated report per company; a report filed under a second id keeps its figures
  // under taidetud_aruanne_report_id (registry-formats.md 1.1d).
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_latest_report AS
    SELECT trim(registrikood) AS code, aruandeaasta AS yr,
      coalesce(nullif(trim(taidetud_aruanne_report_id), ''), trim(report_id)) AS figures_id
    FROM raw_reports
    WHERE coalesce(trim("kas konsolideeritud?"), 'Ei') <> 'Jah' AND aruandeaasta IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY trim(registrikood)
      ORDER BY aruandeaasta DESC, try_strptime(esitatud_kpv, '${ET_DATE}') DESC NULLS LAST, rowid DESC) = 1`);
  const value = (name: string) =>
    `max(TRY_CAST(replace(trim(vaartus), ',', '.') AS DOUBLE)) FILTER (WHERE elemendi_nimetus = '${name}')`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_annual AS
    SELECT r.code, r.yr, e.revenue, e.net_profit, e.equity, e.total_assets
    FROM ee_latest_report r LEFT JOIN (
      SELECT trim(report_id) AS figures_id, ${value(ELEMENTS.revenue)} AS revenue,
        ${value(ELEMENTS.netProfit)} AS net_profit, ${value(ELEMENTS.equity)} AS equity,
        ${value(ELEMENTS.totalAssets)} AS total_assets
      FROM raw_elements GROUP BY ALL
    ) e USING (figures_id)`);
  await countNulled(conn, {
    country,
    file: '4.<year>_aruannete_elemendid',
    report,
    reason: 'element value is not a number (figure left empty)',
    sql: `SELECT count(*) AS n, any_value(vaartus) AS example FROM raw_elements
          WHERE vaartus IS NOT NULL AND TRY_CAST(replace(trim(vaartus), ',', '.') AS DOUBLE) IS NULL`,
  });
}

async function stageEstonia(ctx: StageContext): Promise<StageResult> {
  const { conn, reference, country, report } = ctx;
  await createActivityLeaves(conn, reference);
  await createLocationLeaves(conn, reference);
  await createEmtakCorrespondence(conn);
  await loadRegister(ctx);
  await loadGeneral(ctx);
  await loadPeople(ctx);
  await loadTaxes(ctx);
  const hasDebtors = await loadDebtors(ctx);
  await loadAnnualReports(ctx);

  await report.stage(country, 'build companies', async () => {
    await createLatestMetrics(conn);
    const current = (list: string) => `list_filter(${list}, x -> nullif(trim(x.lopp_kpv), '') IS NULL)`;
    // The current capital entry (ended ones, e.g. in EEK before the euro, have lopp_kpv set).
    await conn.run(`CREATE OR REPLACE TEMP TABLE ee_capital AS
      SELECT code, trim(k.kapitali_suurus) AS amount_text, trim(k.kapitali_valuuta) AS currency
      FROM (SELECT code, unnest(${current('yldandmed.kapitalid')}) AS k FROM ee_general)
      QUALIFY row_number() OVER (PARTITION BY code) = 1`);
    await conn.run(
      contractCompaniesSql(
        {
          registrikood: 'r.code',
          arinimi: 'r.nimi',
          // yldandmed carries the code itself; without a record there, lihtandmed's text form is mapped.
          oiguslik_vorm: "coalesce(nullif(trim(g.yldandmed.oiguslik_vorm), ''), lf.kood)",
          oiguslik_vorm_tekstina: 'r.ettevotja_oiguslik_vorm',
          oigusliku_vormi_alaliik: "nullif(trim(r.ettevotja_oigusliku_vormi_alaliik), '')",
          staatus: `coalesce(${STATUS_SQL}, 'S')`,
          staatus_tekstina: 'r.ettevotja_staatus_tekstina',
          source_status: 'trim(r.ettevotja_staatus)',
          esmaregistreerimise_kpv: 'r.ettevotja_esmakande_kpv',
          ehak_kood: 'loc.kood',
          ehak_nimetus: `coalesce(loc.name, nullif(split_part(r.asukoha_ehak_tekstina, ', ', 1), ''))`,
          asukoht: 'r.asukoht_ettevotja_aadressis',
          aadress_text: 'coalesce(r.ads_normaliseeritud_taisaadress, r.ettevotja_aadress)',
          kmkr_nr: "nullif(trim(r.kmkr_nr), '')",
          // RIK blanks a sole trader's (FIE) number, so a blank there is unknown, not "not registered".
          vat_active: `CASE WHEN nullif(trim(r.kmkr_nr), '') IS NOT NULL THEN true
            WHEN coalesce(nullif(trim(g.yldandmed.oiguslik_vorm), ''), lf.kood) = 'FIE' THEN NULL ELSE false END`,
          kapital: "cap.amount_text || ' ' || cap.currency",
          kapital_amount: 'TRY_CAST(cap.amount_text AS DOUBLE)',
          kapital_currency: 'cap.currency',
          annual_revenue: 'a.revenue',
          annual_net_profit: 'a.net_profit',
          annual_equity: 'a.equity',
          annual_total_assets: 'a.total_assets',
          annual_report_year: 'a.yr',
          has_tax_debt: hasDebtors ? 'd.code IS NOT NULL' : 'NULL::BOOLEAN',
          contacts: `coalesce(list_transform(list_filter(${current('g.yldandmed.sidevahendid')},
              x -> x.liik IN ('EMAIL', 'WWW', 'TEL', 'MOB') AND nullif(trim(x.sisu), '') IS NOT NULL),
            x -> {liik: x.liik, sisu: trim(x.sisu), "source": NULL::VARCHAR}), [])`,
          emtak: 'coalesce(e.emtak, [])',
          people: 'coalesce(p.people, [])',
          is_sole_trader: `coalesce(coalesce(nullif(trim(g.yldandmed.oiguslik_vorm), ''), lf.kood) = 'FIE', false)`,
          not_for_sale: 'false',
          search_name: searchNameSql('r.nimi'),
          search_people: searchPeopleSql('coalesce(p.people, [])'),
          ...METRIC_VALUES,
        },
        `ingest_register r
         LEFT JOIN ee_general g USING (code)
         LEFT JOIN ee_capital cap USING (code)
         LEFT JOIN ee_emtak e USING (code)
         LEFT JOIN ee_people p USING (code)
         LEFT JOIN ee_annual a USING (code)
         LEFT JOIN ee_debtors d USING (code)
         LEFT JOIN ee_legal_forms lf ON lf.tekst = trim(r.ettevotja_oiguslik_vorm)
         LEFT JOIN stage_latest_metrics m ON m.registrikood = r.code
         LEFT JOIN location_leaves loc ON loc.kood = trim(r.asukoha_ehak_kood)`,
      ),
    );
  });
  return {
    source: 'official-files',
    sourceDetail: { register: 'RIK e-Business Register, EMTA', reader: 'ingest/official/ee' },
  };
}

export const EE_ADAPTER: CountryAdapter = { country: 'EE', files: EE_FILES, stage: stageEstonia };

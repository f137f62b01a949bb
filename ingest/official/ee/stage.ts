import { fileURLToPath } from 'node:url';
import { countSql, notCountSql } from '../../../src/contract/data-contract.ts';
import { queryRows, sqlPath } from '../../pipeline/sql.ts';
import {
  addressWithPostcodeSql,
  ANNUAL_VALUES,
  createEmptyHistory,
  JOINED_LISTS,
  varchars,
} from '../stage-sql.ts';
import {
  buildCompanies,
  emtakCorrespondence,
  joinsByCode,
  LATEST_METRICS_JOIN,
  stageSteps,
} from '../stage-steps.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import {
  DEBTORS_HEADER,
  EE_FILES,
  ELEMENTS,
  ELEMENTS_HEADER,
  EMTA_TAXES_HEADER,
  LIHTANDMED_HEADER,
  QUARTERS,
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

/** The legal form as lihtandmed writes it (`Osaühing`) onto the code list's abbreviation (`OÜ`). */
async function createLegalForms({ conn }: StageContext): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_legal_forms AS
    SELECT "Entity Legal Form name Local name" AS tekst, nullif("Abbreviations Local language", '') AS kood
    FROM read_csv(${sqlPath(EE_LEGAL_FORMS_FILE)}, header = true, auto_detect = false, delim = ',', quote = '"',
      columns = {${ELF_COLUMNS.map((c) => `'${c}': 'VARCHAR'`).join(', ')}})
    WHERE "Country Code (ISO 3166-1)" = 'EE' AND "ELF Status ACTV/INAC" = 'ACTV'`);
}

async function readRegister(ctx: StageContext): Promise<void> {
  const raw = await ctx.read('csv', {
    key: 'lihtandmed',
    table: 'raw_lihtandmed',
    stage: 'read lihtandmed',
    delimiter: ';',
    header: LIHTANDMED_HEADER,
    columns: LIHTANDMED_HEADER.map((n) => [n, n === 'ettevotja_esmakande_kpv' ? 'DATE' : 'VARCHAR'] as const),
    dateFormat: ET_DATE,
  });
  const register = await raw.keyRows('ingest_register', 'ariregistri_kood', { checkRule: true });
  await register.nulled(
    'status code not one of R, L, N, K (row kept, status S)',
    `SELECT count(*) AS n, any_value(ettevotja_staatus) AS example FROM ingest_register WHERE ${STATUS_SQL} IS NULL`,
  );
  // No EHAK change table was found in public material (docs/ingest.md), so a code of another EHAK edition
  // than the served tree's is nulled and counted per code.
  await register.perCode(
    'EHAK',
    `SELECT trim(asukoha_ehak_kood) AS code, count(*) AS n FROM ingest_register r
     WHERE nullif(trim(asukoha_ehak_kood), '') IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM location_leaves l WHERE l.kood = trim(r.asukoha_ehak_kood))
     GROUP BY ALL`,
  );
  await register.perCode(
    'legal form',
    `SELECT trim(ettevotja_oiguslik_vorm) AS code, count(*) AS n FROM ingest_register r
     WHERE nullif(trim(ettevotja_oiguslik_vorm), '') IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ee_legal_forms f WHERE f.tekst = trim(r.ettevotja_oiguslik_vorm)
         AND f.kood IS NOT NULL)
     GROUP BY ALL`,
  );
}

/** The parts of a yldandmed record the build reads; an absent file leaves the tables empty with this shape. */
const GENERAL_TYPE = `STRUCT(oiguslik_vorm VARCHAR,
  sidevahendid STRUCT(liik VARCHAR, sisu VARCHAR, lopp_kpv VARCHAR)[],
  teatatud_tegevusalad STRUCT(emtak_kood VARCHAR, emtak_versioon VARCHAR, on_pohitegevusala VARCHAR,
    lopp_kpv VARCHAR)[],
  kapitalid STRUCT(kapitali_suurus VARCHAR, kapitali_valuuta VARCHAR, lopp_kpv VARCHAR)[],
  info_majandusaasta_aruannetest STRUCT(majandusaasta_perioodi_lopp_kpv VARCHAR, tootajate_arv VARCHAR)[])`;

/**
 * A RIK JSON dump (`key`): each company's code and its one nested `field`, read into `raw_<key>`; an empty
 * table of the same columns where the optional dump is absent.
 */
const readRikJson = (ctx: StageContext, key: string, field: string, type: string) =>
  ctx.read('json', {
    key,
    table: `raw_${key}`,
    stage: `read ${field}`,
    columns: [
      ['ariregistri_kood', 'VARCHAR'],
      [field, type],
    ],
    ifAbsent: `ariregistri_kood VARCHAR, ${field} ${type}`,
  });

/** yldandmed: legal form code, contacts, capital and the activities (ee_general, ee_emtak). */
async function readGeneral(ctx: StageContext): Promise<void> {
  // Scalars the register writes as numbers or strings are read as VARCHAR (see loadJson).
  const raw = await readRikJson(ctx, 'yldandmed', 'yldandmed', GENERAL_TYPE);
  const general = await raw.keyRows('ee_general', 'ariregistri_kood');
  await general.orphans('general data');

  // Activities: current entries only (lopp_kpv empty); EMTAK 2008 codes (version 2) mapped to EMTAK 2025.
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE ee_acts AS
    SELECT r.code, r.ord, trim(r.a.emtak_kood) AS raw_code, r.a.emtak_versioon AS version,
      coalesce(lower(r.a.on_pohitegevusala) IN ('true', '1', 'jah'), false) AS is_main,
      CASE WHEN trim(r.a.emtak_versioon) = '2' THEN m.kood ELSE l.kood END AS kood
    FROM (SELECT code, generate_subscripts(yldandmed.teatatud_tegevusalad, 1) AS ord,
        unnest(yldandmed.teatatud_tegevusalad) AS a FROM ee_general) r
      LEFT JOIN ee_emtak2008 m ON m.old = trim(r.a.emtak_kood)
      LEFT JOIN activity_leaves l ON l.kood = trim(r.a.emtak_kood)
    WHERE nullif(trim(r.a.lopp_kpv), '') IS NULL`);
  await general.perCode(
    'EMTAK',
    `SELECT raw_code || ' (version ' || coalesce(trim(version), '?') || ')' AS code, count(*) AS n
     FROM ee_acts WHERE kood IS NULL AND nullif(raw_code, '') IS NOT NULL GROUP BY ALL`,
  );
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE ee_emtak AS
    SELECT code, list({kood: a.kood, label: l.label, is_main: a.is_main} ORDER BY a.ord) AS emtak
    FROM (SELECT * FROM ee_acts WHERE kood IS NOT NULL QUALIFY row_number() OVER (PARTITION BY code, kood ORDER BY ord) = 1) a
      JOIN activity_leaves l USING (kood)
    GROUP BY code`);
}

const PERSONS_TYPE = `STRUCT(isiku_tyyp VARCHAR, isiku_roll VARCHAR, isiku_roll_tekstina VARCHAR, eesnimi VARCHAR,
  nimi_arinimi VARCHAR, algus_kpv VARCHAR, lopp_kpv VARCHAR)[]`;

/** kaardile_kantud_isikud: the current board and procurators (ee_people). */
async function readPeople(ctx: StageContext): Promise<void> {
  // Personal codes (isikukood_registrikood, isikukood_hash) are never read: the contract forbids them.
  const raw = await readRikJson(ctx, 'persons', 'kaardile_kantud_isikud', PERSONS_TYPE);
  await raw.keyRows('ee_persons', 'ariregistri_kood');
  const roles = EE_BOARD_ROLES.map((r) => `'${r}'`).join(', ');
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE ee_people AS
    SELECT code, list_transform(
      list_filter(kaardile_kantud_isikud, p -> nullif(trim(p.lopp_kpv), '') IS NULL AND p.isiku_roll IN (${roles})),
      p -> {nimi: trim(coalesce(nullif(trim(p.eesnimi), '') || ' ', '') || trim(p.nimi_arinimi)),
            isiku_tyyp: CASE WHEN p.isiku_tyyp = 'F' THEN 'F' ELSE 'J' END, roll: p.isiku_roll,
            roll_tekstina: p.isiku_roll_tekstina, algus_kpv: try_strptime(p.algus_kpv, '${ET_DATE}')::DATE}) AS people
    FROM ee_persons`);
}

/** EMTA taxes: four quarters a row into stage_history. */
async function readTaxes(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  await createEmptyHistory(conn);
  const raw = await ctx.read('csv', {
    key: 'taxes',
    table: 'raw_taxes',
    stage: 'read EMTA taxes',
    delimiter: ',',
    header: EMTA_TAXES_HEADER,
    // The Estonian-header original has the same 23 columns in the same order; its labels are unconfirmed.
    acceptHeader: (found) => found[1] === 'Registrikood',
    columns: EMTA_TAXES_HEADER.map(
      (n, i) => [n, i === 6 ? 'INTEGER' : i > 6 ? 'DOUBLE' : 'VARCHAR'] as const,
    ),
    keep: EMTA_TAXES_HEADER.filter((_, i) => i === 1 || i >= 6),
  });
  if (!raw.present) return;
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_taxes AS
    SELECT *, trim("Registry code") AS code FROM raw_taxes
    QUALIFY row_number() OVER (PARTITION BY trim("Registry code"), "Year" ORDER BY rowid) = 1`);
  const [dupes] = await queryRows(
    conn,
    'SELECT (SELECT count(*) FROM raw_taxes) - (SELECT count(*) FROM ee_taxes) AS n',
  );
  raw.reject('duplicate company and year (first kept)', Number(dupes?.['n'] ?? 0), 'row dropped');
  await raw.orphans('tax rows', { table: 'ee_taxes' });

  const quarter = (q: number, roman: string) => `
    SELECT code, "Year" AS y, ${q} AS q, "Turnover ${roman} qtr" AS turnover,
      ${countSql(`"Number of employees ${roman} qtr"`)} AS employees, "State taxes ${roman} qtr" AS state_taxes,
      "Labour taxes and payments ${roman} qtr" AS labour_taxes
    FROM ee_taxes`;
  const counts = QUARTERS.map((roman) => `SELECT "Number of employees ${roman} qtr" AS v FROM ee_taxes`);
  await raw.nulled(
    'Number of employees is not a whole number (left empty)',
    `SELECT count(*) AS n, any_value(v) AS example FROM (${counts.join(' UNION ALL ')}) WHERE ${notCountSql('v')}`,
  );
  await conn.run(`INSERT INTO stage_history
    SELECT code, y::VARCHAR || '-Q' || q::VARCHAR, 'quarterly', y, q, 0, turnover, employees, state_taxes,
      labour_taxes, last_day(make_date(y, q * 3, 1))
    FROM (${quarter(1, 'I')} UNION ALL ${quarter(2, 'II')} UNION ALL ${quarter(3, 'III')} UNION ALL ${quarter(4, 'IV')}) t
    WHERE y IS NOT NULL AND code IN (SELECT code FROM ingest_register)
      AND (turnover IS NOT NULL OR employees IS NOT NULL OR state_taxes IS NOT NULL OR labour_taxes IS NOT NULL)`);
}

/**
 * The annual-report block of yldandmed (`info_majandusaasta_aruannetest`): the latest financial year's
 * employee count, as an `annual` history period ending on that year's last day, for a company EMTA's
 * quarters give no employee count (EMTA's are newer wherever both exist). A `"0"` is a real 0; an empty or
 * absent count is unknown and adds nothing (issue 28).
 */
async function readReportEmployees(ctx: StageContext): Promise<void> {
  await ctx.conn.run(`INSERT INTO stage_history
    SELECT code, year(d)::VARCHAR, 'annual', year(d), 0, 0, NULL, employees, NULL, NULL, d
    FROM (
      SELECT code, try_strptime(trim(b.majandusaasta_perioodi_lopp_kpv), '${ET_DATE}')::DATE AS d,
        ${countSql("TRY_CAST(nullif(trim(b.tootajate_arv), '') AS DOUBLE)")} AS employees
      FROM (SELECT code, unnest(yldandmed.info_majandusaasta_aruannetest) AS b FROM ee_general)
      WHERE try_strptime(trim(b.majandusaasta_perioodi_lopp_kpv), '${ET_DATE}') IS NOT NULL
      QUALIFY row_number() OVER (PARTITION BY code ORDER BY d DESC) = 1
    )
    WHERE employees IS NOT NULL AND code IN (SELECT code FROM ingest_register)
      AND code NOT IN (SELECT registrikood FROM stage_history WHERE employees IS NOT NULL)`);
  await ctx.source('yldandmed').nulled(
    'annual-report employee count is not a number (left out)',
    `SELECT count(*) AS n, any_value(b.tootajate_arv) AS example
       FROM (SELECT unnest(yldandmed.info_majandusaasta_aruannetest) AS b FROM ee_general)
       WHERE nullif(trim(b.tootajate_arv), '') IS NOT NULL AND TRY_CAST(trim(b.tootajate_arv) AS DOUBLE) IS NULL`,
  );
  await ctx.source('yldandmed').nulled(
    'annual-report employee count is not a whole number (left out)',
    `SELECT count(*) AS n, any_value(b.tootajate_arv) AS example
       FROM (SELECT unnest(yldandmed.info_majandusaasta_aruannetest) AS b FROM ee_general)
       WHERE ${notCountSql('TRY_CAST(trim(b.tootajate_arv) AS DOUBLE)')}`,
  );
}

/** EMTA tax debtors (ee_debtors). */
async function readDebtors(ctx: StageContext): Promise<void> {
  const raw = await ctx.read('csv', {
    key: 'debtors',
    table: 'raw_debtors',
    stage: 'read tax debtors',
    delimiter: ';',
    header: DEBTORS_HEADER,
    columns: varchars(DEBTORS_HEADER),
    keep: ['Registrikood'],
    ifAbsent: '"Registrikood" VARCHAR',
  });
  const debtors = await raw.keyRows('ee_debtors', '"Registrikood"');
  await debtors.orphans('debtor rows');
}

/** The annual reports' general data and, per year, their elements (raw_reports, raw_elements). */
async function readAnnualReports(ctx: StageContext): Promise<void> {
  const { conn, sources } = ctx;
  const reports = await ctx.read('csv', {
    key: 'reports',
    table: 'raw_reports',
    stage: 'read annual reports',
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
    ifAbsent: `report_id VARCHAR, taidetud_aruanne_report_id VARCHAR, registrikood VARCHAR, aruandeaasta INTEGER,
      "kas konsolideeritud?" VARCHAR, esitatud_kpv VARCHAR`,
  });
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE raw_elements (report_id VARCHAR, elemendi_nimetus VARCHAR, vaartus VARCHAR)`,
  );
  // The elements are read only beside their reports.
  if (!reports.present) return;
  for (const [i, path] of sources.many('elements').entries()) {
    await ctx.read('csv', {
      path,
      table: `raw_elements_${i}`,
      delimiter: ';',
      header: ELEMENTS_HEADER,
      columns: varchars(ELEMENTS_HEADER),
      keep: ['report_id', 'elemendi_nimetus', 'vaartus'],
    });
    await conn.run(`INSERT INTO raw_elements SELECT * FROM raw_elements_${i}`);
    await conn.run(`DROP TABLE raw_elements_${i}`);
  }
}

/** The latest non-consolidated report per company with its four figures (ee_annual). */
async function buildAnnual(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  // A report filed under a second id keeps its figures under taidetud_aruanne_report_id (registry-formats.md 1.1d).
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
  await ctx.file('4.<year>_aruannete_elemendid').nulled(
    'element value is not a number (figure left empty)',
    `SELECT count(*) AS n, any_value(vaartus) AS example FROM raw_elements
     WHERE vaartus IS NOT NULL AND TRY_CAST(replace(trim(vaartus), ',', '.') AS DOUBLE) IS NULL`,
  );
}

/** The legal form code: yldandmed carries it; without a record there, lihtandmed's text form is mapped. */
const FORM = "coalesce(nullif(trim(g.yldandmed.oiguslik_vorm), ''), lf.kood)";
/** lihtandmed's postcode; the register's address texts do not carry it. */
const POSTCODE = "nullif(trim(r.indeks_ettevotja_aadressis), '')";
const current = (list: string) => `list_filter(${list}, x -> nullif(trim(x.lopp_kpv), '') IS NULL)`;

/** stage_companies: the contract's columns over the tables above. */
const buildEstoniaCompanies = buildCompanies({
  values: {
    registrikood: 'r.code',
    arinimi: 'r.nimi',
    oiguslik_vorm: FORM,
    oiguslik_vorm_tekstina: 'r.ettevotja_oiguslik_vorm',
    oigusliku_vormi_alaliik: "nullif(trim(r.ettevotja_oigusliku_vormi_alaliik), '')",
    staatus: `coalesce(${STATUS_SQL}, 'S')`,
    staatus_tekstina: 'r.ettevotja_staatus_tekstina',
    source_status: 'trim(r.ettevotja_staatus)',
    esmaregistreerimise_kpv: 'r.ettevotja_esmakande_kpv',
    ehak_kood: 'loc.kood',
    ehak_nimetus: `coalesce(loc.name, nullif(split_part(r.asukoha_ehak_tekstina, ', ', 1), ''))`,
    asukoht: 'r.asukoht_ettevotja_aadressis',
    aadress_text: addressWithPostcodeSql(
      'coalesce(r.ads_normaliseeritud_taisaadress, r.ettevotja_aadress)',
      POSTCODE,
    ),
    postcode: POSTCODE,
    kmkr_nr: "nullif(trim(r.kmkr_nr), '')",
    // RIK blanks a sole trader's (FIE) number, so a blank there is unknown, not "not registered".
    vat_active: `CASE WHEN nullif(trim(r.kmkr_nr), '') IS NOT NULL THEN true WHEN ${FORM} = 'FIE' THEN NULL ELSE false END`,
    kapital: "cap.amount_text || ' ' || cap.currency",
    kapital_amount: 'TRY_CAST(cap.amount_text AS DOUBLE)',
    kapital_currency: 'cap.currency',
    ...ANNUAL_VALUES,
    has_tax_debt: 'd.code IS NOT NULL',
    contacts: `coalesce(list_transform(list_filter(${current('g.yldandmed.sidevahendid')},
        x -> x.liik IN ('EMAIL', 'WWW', 'TEL', 'MOB') AND nullif(trim(x.sisu), '') IS NOT NULL),
      x -> {liik: x.liik, sisu: trim(x.sisu), "source": NULL::VARCHAR}), [])`,
    ...JOINED_LISTS,
    is_sole_trader: `coalesce(${FORM} = 'FIE', false)`,
    not_for_sale: 'false',
  },
  from: `ingest_register r
    ${joinsByCode({ g: 'ee_general', cap: 'ee_capital', e: 'ee_emtak', p: 'ee_people', a: 'ee_annual', d: 'ee_debtors' })}
    LEFT JOIN ee_legal_forms lf ON lf.tekst = trim(r.ettevotja_oiguslik_vorm)
    ${LATEST_METRICS_JOIN}
    LEFT JOIN location_leaves loc ON loc.kood = trim(r.asukoha_ehak_kood)`,
  latestMetrics: true,
  // Without the debtor list a company's tax debt is unknown, not "none".
  unknownWithout: { debtors: ['has_tax_debt'] },
});

/** The current capital entry (ended ones, e.g. in EEK before the euro, have lopp_kpv set) (ee_capital). */
async function buildCapital({ conn }: StageContext): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE ee_capital AS
    SELECT code, trim(k.kapitali_suurus) AS amount_text, trim(k.kapitali_valuuta) AS currency
    FROM (SELECT code, unnest(${current('yldandmed.kapitalid')}) AS k FROM ee_general)
    QUALIFY row_number() OVER (PARTITION BY code) = 1`);
}

const stageEstonia = stageSteps({ register: 'RIK e-Business Register, EMTA', reader: 'ingest/official/ee' }, [
  emtakCorrespondence,
  createLegalForms,
  readRegister,
  readGeneral,
  readPeople,
  readTaxes,
  readReportEmployees,
  readDebtors,
  readAnnualReports,
  buildAnnual,
  buildCapital,
  buildEstoniaCompanies,
]);

export const EE_ADAPTER: CountryAdapter = { country: 'EE', files: EE_FILES, stage: stageEstonia };

import { countSql, notCountSql } from '../../../src/contract/data-contract.ts';
import type { TreeNode } from '../../reference/types.ts';
import { dottedSql, naceClassSql } from '../activity-codes.ts';
import { createEmptyHistory, createValuesTable, varchars } from '../stage-sql.ts';
import {
  buildCompanies,
  joinsByCode,
  LATEST_METRICS_JOIN,
  naceCorrespondence,
  stageSteps,
} from '../stage-steps.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import {
  JAR_HEADER,
  LT_FILES,
  PLNA_HEADER,
  SODRA_HEADER,
  sodraKey,
  VMI_REGISTER_HEADER,
  VMI_TAXES_HEADER,
} from './files.ts';

/**
 * JAR `stat_kodas` onto the contract's statuses, from the official list (registry-formats.md 3.1; COLT's
 * "1-3 = liquidation" is wrong): 0 no legal status (operating normally), 1 reorganised, 2 taking part in a
 * reorganisation, 3 being transformed, 4 restructured, 5 going bankrupt, 6 bankrupt, 7 in liquidation,
 * 8 taking part in a division, 9 liquidation initiated, 10 deregistered, 23/24 cross-border merger.
 */
export const LT_STATUS: Readonly<Record<string, 'R' | 'T' | 'N' | 'L' | 'K'>> = {
  '0': 'R',
  '1': 'T',
  '2': 'T',
  '3': 'T',
  '4': 'T',
  '5': 'N',
  '6': 'N',
  '7': 'L',
  '8': 'T',
  '9': 'L',
  '10': 'K',
  '23': 'T',
  '24': 'T',
};

/**
 * `lt_places(variant, name)`: every name variant a row may carry for a municipality (short form, full name,
 * the city of a city municipality) onto the short form the contract stores in ehak_nimetus.
 */
async function createPlaces({ conn, reference }: StageContext): Promise<void> {
  const names = new Set(reference.locationLeaves.map((l) => l.name));
  await conn.run('CREATE OR REPLACE TEMP TABLE lt_places (variant VARCHAR, name VARCHAR)');
  const appender = await conn.createAppender('lt_places');
  const walk = (node: TreeNode) => {
    if (node.children.length === 0) {
      const variants = node.locations ?? [node.label];
      const name = variants.find((v) => names.has(v)) ?? (names.has(node.label) ? node.label : null);
      if (name !== null) {
        for (const v of new Set([...variants, name])) {
          appender.appendVarchar(v);
          appender.appendVarchar(name);
          appender.endRow();
        }
      }
    }
    node.children.forEach(walk);
  };
  (reference.locationTree ?? []).forEach(walk);
  appender.closeSync();
}

/** JAR: the register (ingest_register), its status codes checked against the official list. */
async function readRegister(ctx: StageContext): Promise<void> {
  const raw = await ctx.read('csv', {
    key: 'jar',
    table: 'raw_jar',
    delimiter: '|',
    header: JAR_HEADER,
    columns: JAR_HEADER.map((n) => [n, n === 'ja_reg_data' ? 'DATE' : 'VARCHAR'] as const),
  });
  const register = await raw.keyRows('ingest_register', 'ja_kodas', { checkRule: true });
  await createValuesTable(ctx.conn, 'lt_status', ['stat_code', 'staatus'], LT_STATUS);
  await register.nulled(
    'stat_kodas not in the official list (row kept, status S)',
    `SELECT count(*) AS n, any_value(stat_kodas) AS example FROM ingest_register
     WHERE trim(stat_kodas) NOT IN (SELECT stat_code FROM lt_status)`,
  );
}

/** Sodra's monthly insured persons, one file a year: the monthly history rows (lt_sodra). */
async function readSodra(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  await createEmptyHistory(conn);
  await conn.run(`CREATE OR REPLACE TEMP TABLE lt_sodra (code VARCHAR, month INTEGER, employees INTEGER,
    municipality VARCHAR, eco VARCHAR, file_row BIGINT, file_no INTEGER)`);
  for (const [i, path] of ctx.sources.many('sodra').entries()) {
    // Columns keyed by the `(key)` of their header cells.
    const sodra = await ctx.read('csv', {
      path,
      table: `raw_sodra_${i}`,
      delimiter: ';',
      header: SODRA_HEADER,
      byName: true,
      headerKey: sodraKey,
      decimalSeparator: ',',
      columns: [
        ...varchars(['jarCode', 'municipality', 'ecoActCode']),
        ['month', 'INTEGER'],
        ['numInsured', 'DOUBLE'],
      ],
    });
    await sodra.nulled(
      'numInsured is not a whole number (month left out)',
      `SELECT count(*) AS n, any_value("numInsured") AS example FROM raw_sodra_${i} WHERE ${notCountSql('"numInsured"')}`,
    );
    await conn.run(`INSERT INTO lt_sodra SELECT trim("jarCode"), "month", ${countSql('"numInsured"')},
      trim(municipality), trim("ecoActCode"), rowid, ${i} FROM raw_sodra_${i}`);
    await sodra.orphans('monthly rows', { codeSql: 'trim(t."jarCode")' });
    await conn.run(`DROP TABLE raw_sodra_${i}`);
  }
  await conn.run(`INSERT INTO stage_history
    SELECT code, y::VARCHAR || '-' || lpad(m::VARCHAR, 2, '0'), 'monthly', y, 0, m, NULL, employees, NULL, NULL,
      last_day(make_date(y, m, 1))
    FROM (SELECT code, "month" // 100 AS y, "month" % 100 AS m, employees FROM lt_sodra
          WHERE code IN (SELECT code FROM ingest_register) AND "month" % 100 BETWEEN 1 AND 12
          QUALIFY row_number() OVER (PARTITION BY code, "month" ORDER BY file_no DESC, file_row) = 1)
    -- A month whose count was left out (above) has no figure left: no period.
    WHERE employees IS NOT NULL`);
}

const PLNA_TYPES: Readonly<Record<string, string>> = {
  laikotarpis_nuo: 'DATE',
  laikotarpis_iki: 'DATE',
  reg_date: 'DATE',
  pardavimo_pajamos: 'DOUBLE',
};

/** RC's profit-and-loss statements, one file a year: the turnover per year (lt_plna, lt_turnover). */
async function readStatements(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  await conn.run(`CREATE OR REPLACE TEMP TABLE lt_plna (code VARCHAR, nuo DATE, iki DATE, reg_date DATE,
    turnover DOUBLE, form_kodas VARCHAR, form_pav VARCHAR)`);
  for (const [i, path] of ctx.sources.many('plna').entries()) {
    const plna = await ctx.read('csv', {
      path,
      table: `raw_plna_${i}`,
      // ',' up to 2022, '|' from 2023.
      delimiter: [',', '|'],
      header: PLNA_HEADER,
      columns: PLNA_HEADER.map((n) => [n, PLNA_TYPES[n] ?? 'VARCHAR'] as const),
      keep: [
        'obj_kodas',
        'form_kodas',
        'form_pav',
        'laikotarpis_nuo',
        'laikotarpis_iki',
        'reg_date',
        'pardavimo_pajamos',
      ],
    });
    await plna.orphans('statements', { codeSql: 'trim(t.obj_kodas)' });
    await conn.run(`INSERT INTO lt_plna SELECT trim(obj_kodas), laikotarpis_nuo, laikotarpis_iki, reg_date,
      pardavimo_pajamos, nullif(trim(form_kodas), ''), nullif(trim(form_pav), '') FROM raw_plna_${i}`);
    await conn.run(`DROP TABLE raw_plna_${i}`);
  }
  // Amended filings repeat a row: the latest reg_date wins.
  await conn.run(`CREATE OR REPLACE TEMP TABLE lt_turnover AS
    SELECT code, year(iki) AS y, iki, turnover FROM lt_plna
    WHERE iki IS NOT NULL AND code IN (SELECT code FROM ingest_register)
    QUALIFY row_number() OVER (PARTITION BY code, year(iki) ORDER BY reg_date DESC NULLS LAST) = 1`);
}

/**
 * VMI taxes, cumulative to `menuo` per tax type: a year's figure is the sum over types at the latest month,
 * a whole year when that is December, else year to date. With the turnover, the annual history rows.
 */
async function readTaxes(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  // Without the file no tax figure is known: the history carries turnover and employees only.
  const taxes = await ctx.read('csv', {
    key: 'vmiTaxes',
    table: 'raw_vmi_taxes',
    delimiter: ',',
    header: VMI_TAXES_HEADER,
    byName: true,
    columns: [
      ['mm_kodas.ja_kodas', 'VARCHAR'],
      ['tipas', 'VARCHAR'],
      ['metai', 'INTEGER'],
      ['menuo', 'INTEGER'],
      ['suma', 'DECIMAL(18,2)'],
    ],
    ifAbsent: '"mm_kodas.ja_kodas" VARCHAR, tipas VARCHAR, metai INTEGER, menuo INTEGER, suma DECIMAL(18,2)',
  });
  await taxes.orphans('tax rows', { codeSql: 'trim(t."mm_kodas.ja_kodas")' });
  await conn.run(`CREATE OR REPLACE TEMP TABLE lt_taxes AS
    SELECT code, metai AS y, max(menuo) AS last_month, CAST(sum(suma) AS DOUBLE) AS state_taxes
    FROM (SELECT trim("mm_kodas.ja_kodas") AS code, metai, tipas, menuo, suma FROM raw_vmi_taxes
          WHERE metai IS NOT NULL AND menuo BETWEEN 1 AND 12
          QUALIFY row_number() OVER (PARTITION BY trim("mm_kodas.ja_kodas"), metai, tipas ORDER BY menuo DESC) = 1)
    WHERE code IN (SELECT code FROM ingest_register)
    GROUP BY code, metai`);
  await conn.run(`INSERT INTO stage_history
    SELECT code, y::VARCHAR, 'annual', y, 0, 0, t.turnover, NULL, x.state_taxes, NULL,
      coalesce(t.iki, make_date(y, 12, 31))
    FROM (SELECT * FROM lt_turnover WHERE turnover IS NOT NULL) t
      FULL JOIN (SELECT * FROM lt_taxes WHERE last_month = 12) x USING (code, y)`);
  await conn.run(`INSERT INTO stage_history
    SELECT code, y::VARCHAR, 'year_to_date', y, 0, 0, NULL, NULL, state_taxes, NULL, last_day(make_date(y, last_month, 1))
    FROM lt_taxes WHERE last_month < 12`);
}

const VMI_COLUMNS = [
  'ja_kodas',
  'pvm_kodas',
  'pvm_isregistruota',
  'ekonomine_veikla.kodas',
  'veiklos_pabaiga',
  'pagrindine',
];

/**
 * The VMI taxpayer register: activities (current ones, main first as filed; Sodra's code for a company it
 * lacks) and the VAT registration (lt_emtak, lt_vat).
 */
async function readTaxpayers(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  const vmi = await ctx.read('csv', {
    key: 'vmiRegister',
    table: 'raw_vmi',
    delimiter: ',',
    header: VMI_REGISTER_HEADER,
    byName: true,
    columns: varchars(VMI_COLUMNS),
    ifAbsent: VMI_COLUMNS.map((c) => `"${c}" VARCHAR`).join(', '),
  });
  await vmi.orphans('taxpayer rows', { codeSql: 'trim(t.ja_kodas)' });
  const nace = naceClassSql('"ekonomine_veikla.kodas"');
  await conn.run(`CREATE OR REPLACE TEMP TABLE lt_acts AS
    SELECT trim(v.ja_kodas) AS code, v.rowid AS ord, v."ekonomine_veikla.kodas" AS raw,
      lower(trim(v.pagrindine)) IN ('true', '1', 'taip', 't') AS is_main,
      coalesce(l.kood, m.kood) AS kood
    FROM raw_vmi v
      LEFT JOIN activity_leaves l ON l.kood = ${dottedSql(nace)}
      LEFT JOIN nace_rev2 m ON m.old = ${nace}
    WHERE nullif(trim(v.veiklos_pabaiga), '') IS NULL AND nullif(trim(v."ekonomine_veikla.kodas"), '') IS NOT NULL`);
  await vmi.nulled(
    'EVRK code not in the EVRK 2.1 tree nor mapped from Rev. 2 (activity left out)',
    `SELECT count(*) AS n, any_value(raw) AS example FROM lt_acts WHERE kood IS NULL`,
  );
  await conn.run(`CREATE OR REPLACE TEMP TABLE lt_emtak AS
    SELECT code, list({kood: a.kood, label: l.label, is_main: a.is_main} ORDER BY a.ord) AS emtak
    FROM (SELECT * FROM lt_acts WHERE kood IS NOT NULL QUALIFY row_number() OVER (PARTITION BY code, kood ORDER BY ord) = 1) a
      JOIN activity_leaves l USING (kood)
    GROUP BY code`);
  await conn.run(`INSERT INTO lt_emtak
    SELECT s.code, [{kood: l.kood, label: l.label, is_main: true}]
    FROM (SELECT code, eco FROM lt_sodra QUALIFY row_number() OVER (PARTITION BY code ORDER BY "month" DESC) = 1) s
      JOIN activity_leaves l ON l.kood = ${dottedSql(naceClassSql('s.eco'))}
    WHERE s.code NOT IN (SELECT code FROM lt_emtak)`);
  await conn.run(`CREATE OR REPLACE TEMP TABLE lt_vat AS
    SELECT trim(ja_kodas) AS code,
      any_value(trim(pvm_kodas)) FILTER (WHERE nullif(trim(pvm_kodas), '') IS NOT NULL
        AND nullif(trim(pvm_isregistruota), '') IS NULL) AS vat_number
    FROM raw_vmi GROUP BY 1`);
}

/** ehak_nimetus: the municipality Sodra names (latest month), else the place an address starts with. */
async function buildMunicipality(ctx: StageContext): Promise<void> {
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE lt_municipality AS
    SELECT r.code, coalesce(sp.name, ap.name, ap2.name) AS name
    FROM ingest_register r
      LEFT JOIN (SELECT code, municipality FROM lt_sodra QUALIFY row_number() OVER (PARTITION BY code ORDER BY "month" DESC) = 1) s
        USING (code)
      LEFT JOIN lt_places sp ON sp.variant = s.municipality
      LEFT JOIN lt_places ap ON ap.variant = trim(split_part(r.adresas, ',', 1))
      LEFT JOIN lt_places ap2 ON ap2.variant = trim(split_part(r.adresas, ',', 1)) || ' sav.'`);
  await ctx.source('jar').nulled(
    'municipality not recognised (ehak_nimetus left empty)',
    `SELECT count(*) AS n, any_value(r.adresas) AS example FROM lt_municipality m JOIN ingest_register r USING (code)
     WHERE m.name IS NULL`,
  );
}

/**
 * The legal form from whichever file has it: JAR's code, else the code of the company's latest statement,
 * else JAR's text form looked up in the code list the files themselves pair with that text (a text that
 * pairs with two codes is left out) (lt_form).
 */
async function buildLegalForms({ conn }: StageContext): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE lt_form_codes AS
    SELECT txt, any_value(kod) AS kod FROM (
      SELECT DISTINCT lower(trim(form_pavadinimas)) AS txt, trim(form_kodas) AS kod FROM ingest_register
      UNION SELECT DISTINCT lower(form_pav), form_kodas FROM lt_plna
    ) WHERE nullif(txt, '') IS NOT NULL AND nullif(kod, '') IS NOT NULL
    GROUP BY txt HAVING count(DISTINCT kod) = 1`);
  await conn.run(`CREATE OR REPLACE TEMP TABLE lt_form AS
    SELECT r.code,
      coalesce(nullif(trim(r.form_kodas), ''), p.form_kodas, fc.kod) AS kod,
      coalesce(nullif(trim(r.form_pavadinimas), ''), p.form_pav) AS txt
    FROM ingest_register r
      LEFT JOIN (SELECT code, form_kodas, form_pav FROM lt_plna WHERE form_kodas IS NOT NULL
                 QUALIFY row_number() OVER (PARTITION BY code ORDER BY iki DESC NULLS LAST, reg_date DESC NULLS LAST) = 1) p
        USING (code)
      LEFT JOIN lt_form_codes fc ON fc.txt = lower(trim(r.form_pavadinimas))`);
}

/** stage_companies: the contract's columns over the tables above. */
const buildLithuaniaCompanies = buildCompanies({
  values: {
    registrikood: 'r.code',
    arinimi: 'r.ja_pavadinimas',
    oiguslik_vorm: 'f.kod',
    oiguslik_vorm_tekstina: 'f.txt',
    staatus: "coalesce(st.staatus, 'S')",
    staatus_tekstina: 'r.stat_pavadinimas',
    source_status: 'trim(r.stat_kodas)',
    esmaregistreerimise_kpv: 'r.ja_reg_data',
    ehak_nimetus: 'mu.name',
    asukoht: `regexp_replace(r.adresas, ',\\s*LT-\\d{5}\\s*$', '')`,
    aadress_text: 'r.adresas',
    vat_active: 'v.vat_number IS NOT NULL',
    vat_number: 'v.vat_number',
    emtak: 'coalesce(e.emtak, [])',
    // Lithuania publishes no people (spec 2.3).
    people: '[]',
    is_sole_trader: 'false',
    not_for_sale: 'false',
  },
  from: `ingest_register r
    LEFT JOIN lt_status st ON st.stat_code = trim(r.stat_kodas)
    ${joinsByCode({ mu: 'lt_municipality', f: 'lt_form', e: 'lt_emtak', v: 'lt_vat' })}
    ${LATEST_METRICS_JOIN}`,
  latestMetrics: true,
  // Without the VMI taxpayer register the VAT state is unknown, never derived from the code.
  unknownWithout: { vmiRegister: ['vat_active'] },
});

const stageLithuania = stageSteps(
  { register: 'Registrų centras, Sodra, VMI', reader: 'ingest/official/lt' },
  [
    naceCorrespondence(true),
    createPlaces,
    readRegister,
    readSodra,
    readStatements,
    readTaxes,
    readTaxpayers,
    buildMunicipality,
    buildLegalForms,
    buildLithuaniaCompanies,
  ],
);

export const LT_ADAPTER: CountryAdapter = { country: 'LT', files: LT_FILES, stage: stageLithuania };

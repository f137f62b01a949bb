import path from 'node:path';
import { SCB_ATTRIBUTION } from '../../../src/services/companies.ts';
import {
  blankSql as blank,
  caseSql,
  fieldOf,
  postcodeSql,
  sqlString as str,
  varchars,
} from '../stage-sql.ts';
import { queryRows } from '../../pipeline/sql.ts';
import { readHeaderFields } from '../text-file.ts';
import { buildCompanies, stageSteps } from '../stage-steps.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import { normaliseBolagsverket } from './bolagsverket-file.ts';
import {
  SE_BV_FORMS,
  SE_BV_REGISTERED,
  SE_DEREGISTRATION_TEXT,
  SE_FTGSTAT,
  SE_IDENTITY_TYPES,
  SE_JURFORM,
  SE_NAME_TYPES,
  SE_PROCEEDINGS,
  SE_SOLE_TRADER_JURFORM,
  SE_VAT_REGISTERED,
  reklamMarketingSql,
  reklamPhoneSql,
} from './codes.ts';
import {
  BOLAGSVERKET_HEADER,
  CFAR_HEADER,
  FDB_KEYS,
  SCB_ACTIVITY_COLUMNS,
  SCB_JE_HEADER,
  SE_FILES,
} from './files.ts';

/** `29180` → `291 80`, as Swedish postcodes are written. */
const postcode = (e: string): string => postcodeSql(e, 3, ' ');
/** SCB writes a legal person's number as `16` + the organisation number. */
const orgnr = (e: string, otherwise: string) =>
  `CASE WHEN regexp_full_match(trim(${e}), '16\\d{10}') THEN substr(trim(${e}), 3) ELSE ${otherwise} END`;

const SCB_KEEP = ['FtgStat', 'Gatuadress', 'PostNr', 'PostOrt', 'JurForm', 'Namn', ...SCB_ACTIVITY_COLUMNS];

/**
 * SCB JE: every unit SCB holds (se_scb), legal persons under `16` + organisation number (keyed, scb_legal),
 * sole traders (JurForm 10) under the owner's personal number, which joins the other files and is never kept.
 */
async function readScb(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  // The real file ends its header and every row with a tab: a 35th, empty column (SOURCES.md).
  const trailing = readHeaderFields(ctx.sources.one('scb')!, '\t', 'latin-1').at(-1) === '';
  const raw = await ctx.read('csv', {
    key: 'scb',
    table: 'raw_scb',
    delimiter: '\t',
    quote: '',
    encoding: 'latin-1',
    header: trailing ? [...SCB_JE_HEADER, ''] : SCB_JE_HEADER,
    columns: varchars(trailing ? [...SCB_JE_HEADER, 'trailing_tab'] : SCB_JE_HEADER),
    keep: [...SCB_KEEP, 'PeOrgNr', 'RegDatKtid', 'Reklamsparrtyp'],
  });
  const sole = `trim(JurForm) = ${str(SE_SOLE_TRADER_JURFORM)}`;
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE raw_scb_legal AS SELECT * FROM raw_scb WHERE NOT coalesce(${sole}, false)`,
  );
  await conn.run(`CREATE OR REPLACE TEMP TABLE raw_scb_sole AS SELECT * FROM raw_scb WHERE ${sole}`);
  await conn.run('DROP TABLE raw_scb');
  await ctx
    .file(raw.name, 'raw_scb_legal')
    .keyRows('scb_legal', orgnr('PeOrgNr', 'PeOrgNr'), { checkRule: true });
  // Sole traders keep an empty registrikood (their only code is a personal number); one row per person.
  await ctx.file(raw.name, 'raw_scb_sole').keyRows('se_sole', 'PeOrgNr');
  await conn.run(`CREATE OR REPLACE TEMP TABLE se_scb AS
    SELECT code, trim(PeOrgNr) AS pe, false AS sole, * EXCLUDE (code, file_row) FROM scb_legal
    UNION ALL BY NAME
    SELECT '' AS code, trim(PeOrgNr) AS pe, true AS sole, * EXCLUDE (code, file_row) FROM se_sole`);
  await conn.run('DROP TABLE se_sole');
  await conn.run('DROP TABLE scb_legal');
}

/** SCB's codes checked: marketing block, state, legal form; the SNI codes onto the SNI 2025 tree, SNI 2007 ones mapped forward (se_activity). */
async function checkScbCodes(ctx: StageContext): Promise<void> {
  const scb = ctx.source('scb');
  await scb.nulled(
    'Reklamsparrtyp not a known code (marketing blocks left empty)',
    `SELECT count(*) AS n, any_value(Reklamsparrtyp) AS example FROM se_scb
     WHERE ${blank('Reklamsparrtyp')} IS NOT NULL AND ${reklamMarketingSql('Reklamsparrtyp')} IS NULL`,
  );
  await scb.nulled(
    'FtgStat not 0, 1 or 9',
    `SELECT count(*) AS n, any_value(FtgStat) AS example FROM se_scb
     WHERE trim(coalesce(FtgStat, '')) NOT IN (${Object.keys(SE_FTGSTAT).map(str).join(', ')})`,
  );
  // A JurForm SCB's list does not have: the code is kept, its label left NULL, counted per code.
  await scb.perCode(
    'JurForm',
    `SELECT trim(u.JurForm) AS code, count(*) AS n, min(u.code) AS example FROM se_scb u
     WHERE ${blank('u.JurForm')} IS NOT NULL AND trim(u.JurForm) NOT IN (${Object.keys(SE_JURFORM).map(str).join(', ')})
     GROUP BY 1`,
    { listAll: true },
  );
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE se_activity AS
    WITH codes AS (
      SELECT pe, k, regexp_replace(coalesce(ng, ''), '[^0-9]', '', 'g') AS kood
      FROM (SELECT pe, unnest([Ng1, Ng2, Ng3, Ng4, Ng5]) AS ng, unnest(range(1, 6)) AS k FROM se_scb)
      WHERE ${blank('ng')} IS NOT NULL
    )
    SELECT c.pe, list({kood: l.kood, label: l.label, is_main: c.k = 1} ORDER BY c.k) FILTER (WHERE l.kood IS NOT NULL) AS emtak,
      count(*) FILTER (WHERE l.kood IS NULL) AS unknown, any_value(c.kood) FILTER (WHERE l.kood IS NULL) AS example
    FROM codes c LEFT JOIN activity_forward f ON f.old = c.kood
      LEFT JOIN activity_leaves l ON l.kood = coalesce(f.kood, c.kood) GROUP BY c.pe`);
  await scb.nulled(
    'SNI code not in the SNI 2025 tree nor mapped forward from SNI 2007 (left out of emtak)',
    `SELECT sum(unknown) AS n, any_value(example) FILTER (WHERE unknown > 0) AS example FROM se_activity`,
  );
}

const MAIN_NAME = str(`${SE_NAME_TYPES.main}-ORGNAM`);
const TRADE_NAME = str(`${SE_NAME_TYPES.trade}-ORGNAM`);
const PLAIN_NAME = str(`${SE_NAME_TYPES.plain}-ORGNAM`);
/**
 * Per organisation: identity type, current name, trade names, legal form, proceeding, (de)registration and
 * postal address (an organisation spans rows and `|` repeats). `postadress` is `street$c/o$town$postcode$country`
 * (registry-formats.md 7.1), kept as published: its c/o line and its casing.
 */
const BV_SQL = `CREATE OR REPLACE TEMP TABLE se_bv AS
  WITH r AS (
    SELECT trim(split_part(organisationsidentitet, '$', 1)) AS ident,
      trim(split_part(organisationsidentitet, '$', 2)) AS idtype, rowid AS r, * EXCLUDE (organisationsidentitet),
      list_filter(string_split(coalesce(organisationsnamn, ''), '|'), n -> n <> '') AS names,
      list_filter(string_split(coalesce(pagandeAvvecklingsEllerOmstruktureringsforfarande, ''), '|'), p -> p <> '') AS procs
    FROM raw_bv
  ), n AS (
    SELECT ident, r, k, split_part(nm, '$', 1) AS name, split_part(nm, '$', 2) AS type
    FROM (SELECT ident, r, unnest(names) AS nm, generate_subscripts(names, 1) AS k FROM r)
  ), names AS (
    SELECT ident, coalesce(arg_min(name, (r, k)) FILTER (WHERE type = ${MAIN_NAME}),
        arg_min(name, (r, k)) FILTER (WHERE type = ${PLAIN_NAME})) AS name,
      list(name ORDER BY r, k) FILTER (WHERE type = ${TRADE_NAME}) AS trade_names,
      coalesce(min(r) FILTER (WHERE type = ${MAIN_NAME}), min(r) FILTER (WHERE type = ${PLAIN_NAME})) AS main_row
    FROM n GROUP BY ident
  ), o AS (
    SELECT ident, any_value(idtype) AS idtype, min(r) AS first_row,
      arg_min(trim(organisationsform), r) FILTER (WHERE ${blank('organisationsform')} IS NOT NULL) AS form,
      arg_min(postadress, r) FILTER (WHERE ${blank("replace(postadress, '$', '')")} IS NOT NULL) AS postadress
    FROM r GROUP BY ident
  ), p AS (
    SELECT ident, arg_min(split_part(p, '$', 1), (r, k)) AS proc
    FROM (SELECT ident, r, unnest(procs) AS p, generate_subscripts(procs, 1) AS k FROM r)
    WHERE split_part(p, '$', 1) IN (${Object.keys(SE_PROCEEDINGS).map(str).join(', ')})
    GROUP BY ident
  )
  SELECT o.ident, o.idtype, names.name, coalesce(names.trade_names, []) AS trade_names, p.proc, o.form,
    ${blank('r.avregistreringsdatum')} AS avreg_raw, TRY_CAST(${blank('r.avregistreringsdatum')} AS DATE) AS avreg_date,
    ${blank('r.avregistreringsorsak')} AS avreg_cause,
    ${blank('r.registreringsdatum')} AS regdate_raw, TRY_CAST(${blank('r.registreringsdatum')} AS DATE) AS regdate,
    o.postadress,
    CASE WHEN len(string_split(o.postadress, '$')) = 5 THEN {
      street: ${blank("split_part(o.postadress, '$', 1)")}, co: ${blank("split_part(o.postadress, '$', 2)")},
      town: ${blank("split_part(o.postadress, '$', 3)")}, postcode: ${blank("split_part(o.postadress, '$', 4)")}
    } END AS address
  FROM o LEFT JOIN names ON names.ident = o.ident
    LEFT JOIN r ON r.ident = o.ident AND r.r = coalesce(names.main_row, o.first_row)
    LEFT JOIN p ON p.ident = o.ident`;

/**
 * Bolagsverket: names (current, and trade names under their own type), registration, deregistration and
 * ongoing proceedings (se_bv), read from its RFC 4180 twin (bolagsverket-file.ts).
 */
async function readBolagsverket(ctx: StageContext): Promise<void> {
  const file = ctx.sources.one('bolagsverket')!;
  const name = ctx.sources.displayName(file);
  const twin = path.join(ctx.workDir, 'bolagsverket_bulkfil.rfc4180.csv');
  const split = () => normaliseBolagsverket(ctx.country, file, name, twin, ctx.report);
  await ctx.stage(`split ${name}`, split, (r) => r.rows + r.rejected);
  const bv = await ctx.read('csv', {
    path: twin,
    name,
    table: 'raw_bv',
    delimiter: ';',
    header: BOLAGSVERKET_HEADER,
    columns: varchars(BOLAGSVERKET_HEADER),
    keep: [
      'organisationsidentitet',
      'organisationsnamn',
      'avregistreringsdatum',
      'avregistreringsorsak',
      'pagandeAvvecklingsEllerOmstruktureringsforfarande',
      'registreringsdatum',
      'organisationsform',
      'postadress',
    ],
  });
  await ctx.conn.run(BV_SQL);
  await ctx.conn.run('DROP TABLE raw_bv');
  await bv.nulled(
    'registreringsdatum or avregistreringsdatum not a date (left empty)',
    `SELECT count(*) AS n, any_value(coalesce(regdate_raw, avreg_raw)) AS example FROM se_bv
     WHERE (regdate_raw IS NOT NULL AND regdate IS NULL) OR (avreg_raw IS NOT NULL AND avreg_date IS NULL)`,
  );
  await bv.nulled(
    'organisation with no current name (FORETAGSNAMN or NAMN) row',
    `SELECT count(*) AS n, any_value(ident) AS example FROM se_bv WHERE name IS NULL`,
  );
  await bv.nulled(
    'postadress not street$c/o$town$postcode$country (address from SCB)',
    `SELECT count(*) AS n, any_value(postadress) AS example FROM se_bv WHERE postadress IS NOT NULL AND address IS NULL`,
  );
}

const IS_ORG = `idtype = ${str(SE_IDENTITY_TYPES.org)}`;
const IS_PERSON = `idtype = ${str(SE_IDENTITY_TYPES.person)}`;

/**
 * The register's units (se_units): every organisation of Bolagsverket's file and every unit of SCB's JE file.
 * Bolagsverket's file is the companies register; SCB adds its fields where it holds the unit (`in_scb`), and
 * holds units Bolagsverket does not register (ideella föreningar, say). An organisation number only
 * Bolagsverket lists is checked like SCB's; a person's number (a sole trader) is held with an empty code.
 * ingest_register is the legal persons, the key of the other files.
 */
async function joinRegisters(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  const bv = ctx.source('bolagsverket', 'se_bv');
  const other = await queryRows(
    conn,
    `SELECT count(*)::INTEGER AS n, any_value(idtype) AS example FROM se_bv WHERE NOT coalesce(${IS_ORG} OR ${IS_PERSON}, false)`,
  );
  bv.reject(
    `identity type neither ${SE_IDENTITY_TYPES.org} nor ${SE_IDENTITY_TYPES.person} (left out)`,
    Number(other[0]?.['n'] ?? 0),
    'row dropped',
    (other[0]?.['example'] as string | null) ?? null,
  );
  await conn.run(`DELETE FROM se_bv WHERE NOT coalesce(${IS_ORG} OR ${IS_PERSON}, false)`);
  await conn.run(`CREATE OR REPLACE TEMP TABLE bv_org_raw AS
    SELECT ident FROM se_bv b WHERE ${IS_ORG} AND NOT EXISTS (SELECT 1 FROM se_scb u WHERE NOT u.sole AND u.code = b.ident)`);
  await ctx.file(bv.name, 'bv_org_raw').keyRows('bv_org', 'ident', { checkRule: true });
  await conn.run(`CREATE OR REPLACE TEMP TABLE se_units AS
    SELECT *, true AS in_scb FROM se_scb
    UNION ALL BY NAME
    -- FDB answers carry SCB's PeOrgNr (16 + the number): an FDB unit SCB's JE file lacks still joins.
    SELECT code, '16' || code AS pe, false AS sole, false AS in_scb FROM bv_org
    UNION ALL BY NAME
    SELECT '' AS code, ident AS pe, true AS sole, false AS in_scb FROM se_bv b
    WHERE ${IS_PERSON} AND NOT EXISTS (SELECT 1 FROM se_scb u WHERE u.sole AND u.pe = b.ident)`);
  await conn.run('DROP TABLE se_scb');
  await conn.run('DROP TABLE bv_org');
  await conn.run('CREATE OR REPLACE TEMP TABLE ingest_register AS SELECT * FROM se_units WHERE NOT sole');
  await bv.nulled(
    "organisation not in the SCB JE file (served without SCB's fields)",
    `SELECT count(*) AS n, any_value(code) AS example FROM se_units WHERE NOT in_scb AND NOT sole`,
  );
  // A deregistration cause without a wording in SE_DEREGISTRATION_TEXT: staatus K, its text NULL, per code.
  await bv.perCode(
    'avregistreringsorsak',
    `SELECT avreg_cause AS code, count(*) AS n, min(ident) AS example FROM se_bv
     WHERE avreg_date IS NOT NULL AND avreg_cause IS NOT NULL
       AND avreg_cause NOT IN (${Object.keys(SE_DEREGISTRATION_TEXT).map(str).join(', ')})
     GROUP BY 1`,
    { listAll: true },
  );
  await bv.perCode(
    'organisationsform',
    `SELECT b.form AS code, count(*) AS n, min(b.ident) AS example FROM se_units u JOIN se_bv b ON b.ident = u.code
     WHERE NOT u.in_scb AND b.form IS NOT NULL AND b.form NOT IN (${Object.keys(SE_BV_FORMS).map(str).join(', ')})
     GROUP BY 1`,
    { listAll: true },
  );
}

/** An FDB answer's field by its name in FDB_KEYS, over alias `f`. */
const k = (name: keyof typeof FDB_KEYS) => `f."${FDB_KEYS[name]}"`;

/**
 * SCB Företagsregistret extract: size and turnover class, the labelled categories, seat and address
 * (se_fdb). Optional: without the FDB answers the bands and the se_register categories stay NULL.
 */
async function readFdb(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  const keys = Object.values(FDB_KEYS);
  // Only the newest harvest: an older one left in the folder would bring back companies since gone.
  const date = (f: string) => /_(\d{8})_\d+\.json$/.exec(ctx.sources.displayName(f))?.[1] ?? '';
  const all = ctx.sources.many('fdb');
  const newest = all.map(date).sort().at(-1);
  const files = all.filter((f) => date(f) === newest);
  await conn.run(`CREATE OR REPLACE TEMP TABLE raw_fdb (${keys.map((c) => `"${c}" VARCHAR`).join(', ')})`);
  for (const [i, path] of files.entries()) {
    await ctx.read('json', { path, table: `raw_fdb_${i}`, columns: varchars(keys) });
    await conn.run(`INSERT INTO raw_fdb SELECT * FROM raw_fdb_${i}`);
    await conn.run(`DROP TABLE raw_fdb_${i}`);
  }
  await conn.run(`CREATE OR REPLACE TEMP TABLE se_fdb AS
    SELECT * FROM (SELECT trim(f."${FDB_KEYS.orgnr}") AS pe, * FROM raw_fdb f)
    QUALIFY row_number() OVER (PARTITION BY pe ORDER BY pe) = 1`);
  await conn.run('DROP TABLE raw_fdb');
  const fdb = ctx.file(
    files.length ? ctx.sources.displayName(files[0]!).replace(/_\d+\.json$/, '_*.json') : 'fdb',
  );
  await fdb.nulled(
    'size class (Stkl, kod) not 0-16 (left empty)',
    `SELECT count(*) AS n, any_value(${k('sizeCode')}) AS example FROM se_fdb f
     WHERE NOT coalesce(TRY_CAST(${k('sizeCode')} AS INTEGER) BETWEEN 0 AND 16, false)`,
  );
  await fdb.nulled(
    'Säteskommun code not a Swedish kommun (ehak_kood left empty)',
    `SELECT count(*) AS n, any_value(${k('kommunCode')}) AS example FROM se_fdb f
     WHERE ${blank(k('kommunCode'))} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM location_leaves l WHERE l.kood = trim(${k('kommunCode')}))`,
  );
  await fdb.nulled(
    'unit in neither the SCB JE nor the Bolagsverket file (left out)',
    `SELECT count(*) AS n, any_value(pe) AS example FROM se_fdb f ANTI JOIN se_units u USING (pe)`,
  );
}

/** stage_workplaces' columns from a CFAR row `w` and its company `r`. */
const WORKPLACE_SQL = `CREATE OR REPLACE TEMP TABLE stage_workplaces AS
  SELECT w.code AS registrikood, w.cfar_nr, coalesce(${blank('Benamning')}, r.Namn, '') AS name,
    row_number() OVER (PARTITION BY w.code ORDER BY trim(Huvudarbetsstalle) = '1' DESC, w.file_row) = 1 AS is_main,
    trim(ArbstStatus) = '1' AS is_active,
    ${blank('BesGatuadress')} AS visit_address, ${postcode('BesPostNr')} AS visit_postcode,
    ${blank('BesPostOrt')} AS visit_town, ${blank('w.Gatuadress')} AS postal_address,
    ${postcode('w.PostNr')} AS postal_code, ${blank('w.PostOrt')} AS postal_town,
    coalesce(${blank('Kommun')}, '') AS kommun_code, ${blank('KommunNamn')} AS kommun_name,
    list_transform(list_filter([w.Ng1, w.Ng2, w.Ng3, w.Ng4, w.Ng5], x -> ${blank('x')} IS NOT NULL),
      x -> coalesce(fwd.m[x], x)) AS activity_codes,
    coalesce(TRY_CAST(Stkl AS INTEGER), 0) AS employees_band_code,
    ${blank('Telefon')} AS phone, ${blank('EPost')} AS email,
    TRY_CAST(SWEREF99TM_N AS DOUBLE) AS sweref99tm_n, TRY_CAST(SWEREF99TM_E AS DOUBLE) AS sweref99tm_e,
    coalesce(${reklamMarketingSql('w.Reklamsparrtyp')}, false) AS marketing_optout,
    coalesce(${reklamPhoneSql('w.Reklamsparrtyp')}, false) AS phone_optout
  FROM se_cfar w JOIN ingest_register r ON r.code = w.code
    -- SNI 2007 codes mapped forward to SNI 2025, as the company's own (se_activity).
    CROSS JOIN (SELECT map_from_entries(list({k: old, v: kood})) AS m FROM activity_forward) fwd
  WHERE w.cfar_nr IS NOT NULL`;

/** Workplaces (CFAR), read by name, their column list being unconfirmed; without the file, none. */
async function readWorkplaces(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  const cfar = await ctx.read('csv', {
    key: 'cfar',
    table: 'raw_cfar',
    delimiter: '\t',
    encoding: 'latin-1',
    header: CFAR_HEADER,
    byName: true,
    columns: varchars(CFAR_HEADER),
    ifAbsent: CFAR_HEADER.map((c) => `"${c}" VARCHAR`).join(', '),
  });
  await conn.run(`CREATE OR REPLACE TEMP TABLE se_cfar AS
    SELECT ${orgnr('PeOrgNr', 'trim(PeOrgNr)')} AS code, TRY_CAST(CFARNr AS INTEGER) AS cfar_nr, rowid AS file_row, *
    FROM raw_cfar`);
  await conn.run('DROP TABLE raw_cfar');
  const workplaces = ctx.file(cfar.name, 'se_cfar');
  await workplaces.orphans('workplaces');
  await workplaces.nulled(
    'workplace without a valid CFAR number (left out)',
    `SELECT count(*) AS n, any_value(CFARNr) AS example FROM se_cfar WHERE cfar_nr IS NULL`,
  );
  await workplaces.nulled(
    'company without exactly one main workplace (the flagged one, else the first, made main)',
    `SELECT count(*) AS n, any_value(code) AS example FROM (
       SELECT code FROM se_cfar WHERE cfar_nr IS NOT NULL GROUP BY code
       HAVING count(*) FILTER (WHERE trim(Huvudarbetsstalle) = '1') <> 1)`,
  );
  await conn.run(WORKPLACE_SQL);
  await conn.run('DROP TABLE se_cfar');
}

const state = (field: 'staatus' | 'text') =>
  `coalesce(${caseSql('b.proc', fieldOf(SE_PROCEEDINGS, field))}, ${caseSql('trim(u.FtgStat)', fieldOf(SE_FTGSTAT, field))},
    CASE WHEN NOT u.in_scb AND b.ident IS NOT NULL THEN ${str(SE_BV_REGISTERED[field])} END)`;
const DEREGISTERED = 'b.avreg_date IS NOT NULL';
const labelled = (code: keyof typeof FDB_KEYS, label: keyof typeof FDB_KEYS) =>
  `CASE WHEN ${blank(k(code))} IS NOT NULL OR ${blank(k(label))} IS NOT NULL
    THEN {code: ${blank(k(code))}, label: ${blank(k(label))}} END`;
/** Bolagsverket's postal address as published: its c/o line first (as a Swedish address is written), its casing. */
const BV_ADDRESS = `nullif(concat_ws(', ', b.address.co, b.address.street,
  nullif(concat_ws(' ', ${postcode('b.address.postcode')}, b.address.town), '')), '')`;
// Bolagsverket's address where it publishes one; else the FDB answer's (mixed case), else the JE file's (capitals).
const ASUKOHT = `coalesce(${BV_ADDRESS},
  ${blank(k('postAddress'))} || ', ' || ${blank(k('postCode'))} || ' ' || ${blank(k('postTown'))},
  ${blank('u.Gatuadress')} || ', ' || ${postcode('u.PostNr')} || ' ' || ${blank('u.PostOrt')})`;
/** SCB's JurForm where SCB holds the unit, else Bolagsverket's organisationsform as published. */
const FORM = `CASE WHEN u.in_scb THEN ${blank('u.JurForm')} ELSE b.form END`;

/** stage_companies: the contract's columns over the tables above. */
const buildSwedenCompanies = buildCompanies({
  values: {
    registrikood: 'u.code',
    arinimi: `coalesce(b.name, ${blank('u.Namn')})`,
    oiguslik_vorm: FORM,
    oiguslik_vorm_tekstina: `CASE WHEN u.in_scb THEN ${caseSql('trim(u.JurForm)', SE_JURFORM)} ELSE ${caseSql('b.form', SE_BV_FORMS)} END`,
    staatus: `CASE WHEN ${DEREGISTERED} THEN 'K' ELSE ${state('staatus')} END`,
    staatus_tekstina: `CASE WHEN ${DEREGISTERED} THEN ${caseSql('b.avreg_cause', SE_DEREGISTRATION_TEXT)}
      ELSE ${state('text')} END`,
    source_status: `CASE WHEN ${DEREGISTERED} THEN b.avreg_cause ELSE coalesce(b.proc, ${blank('u.FtgStat')}) END`,
    esmaregistreerimise_kpv: 'b.regdate',
    ehak_kood: 'loc.kood',
    ehak_nimetus: 'loc.name',
    asukoht: ASUKOHT,
    aadress_text: `${ASUKOHT} || coalesce(', ' || ${blank(k('lan'))}, '')`,
    // From the same source as the address: Bolagsverket's, else FDB's, else the JE file's.
    postcode: `coalesce(${postcode('b.address.postcode')}, ${postcode(k('postCode'))}, ${postcode('u.PostNr')})`,
    vat_active: `${k('vatCode')} = ${str(SE_VAT_REGISTERED)}`,
    // SCB publishes the VAT registration (Momsstatus), not a VAT number: none is built from the code.
    vat_number: 'NULL::VARCHAR',
    emtak: 'coalesce(a.emtak, [])',
    se_register: `{
      export_import: ${labelled('exportCode', 'exportLabel')},
      owner_category: ${labelled('ownerCode', 'ownerLabel')},
      sme_class: ${labelled('smeCode', 'smeLabel')},
      listing: ${labelled('listingCode', 'listingLabel')},
      turnover_class: ${labelled('turnoverCode', 'turnoverLabel')},
      activity_start_date: try_strptime(${blank('u.RegDatKtid')}, '%Y%m%d')::DATE,
      trade_names: coalesce(b.trade_names, []),
      "source": CASE WHEN u.in_scb OR f.pe IS NOT NULL THEN ${str(SCB_ATTRIBUTION)} END
    }`,
    se_employees_band: `CASE WHEN TRY_CAST(${k('sizeCode')} AS INTEGER) BETWEEN 0 AND 16 THEN TRY_CAST(${k('sizeCode')} AS INTEGER) END`,
    se_turnover_band: `TRY_CAST(${k('turnoverCode')} AS INTEGER)`,
    marketing_optout: reklamMarketingSql('u.Reklamsparrtyp'),
    phone_optout: reklamPhoneSql('u.Reklamsparrtyp'),
    is_sole_trader: 'u.sole',
    not_for_sale: 'u.sole',
  },
  from: `se_units u
    LEFT JOIN se_bv b ON b.ident = CASE WHEN u.sole THEN u.pe ELSE u.code END
    LEFT JOIN se_fdb f ON f.pe = u.pe
    LEFT JOIN se_activity a ON a.pe = u.pe
    LEFT JOIN location_leaves loc ON loc.kood = trim(${k('kommunCode')})`,
  noHistory: true,
});

const stageSweden = stageSteps(
  { register: 'Bolagsverket, SCB Företagsregistret', reader: 'ingest/official/se' },
  [readScb, checkScbCodes, readBolagsverket, joinRegisters, readFdb, readWorkplaces, buildSwedenCompanies],
);

export const SE_ADAPTER: CountryAdapter = { country: 'SE', files: SE_FILES, stage: stageSweden };

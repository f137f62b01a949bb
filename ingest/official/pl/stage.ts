import { sortedList } from '../../../src/engine/batch-sql.ts';
import { blankSql as blank, caseSql, fieldOf, postcodeSql, sqlString as str } from '../stage-sql.ts';
import { buildCompanies, stageSteps, type StageStep } from '../stage-steps.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import {
  birMatch,
  birIsError,
  birLeafNames,
  birLeaves,
  birLookup,
  birRecords,
  createBirMacros,
} from './bir-sql.ts';
import { family, loadCaptures, type SavedAnswers } from './captures.ts';
import {
  PL_CEIDG_STATES,
  PL_DZIAL6_STEMS,
  PL_KRS_STATES,
  PL_MOBILE_PATTERN,
  PL_REGON_STATES,
  PL_ROLE_TEXT,
  type PlState,
} from './codes.ts';
import {
  BIR_READ,
  CEIDG_FIRMA_TYPE,
  KRS_ODPIS_TYPE,
  KRS_SAVED_ANSWER,
  PKD_KEYS,
  PL_CAPTURE_PREFIX,
  PL_FILES,
  REGON_FIELDS,
} from './files.ts';

/** `69518` → `69-518`. */
const postcode = (e: string): string => postcodeSql(e, 2, '-');
/** `7022Z`, `70.22.Z` → the PKD tree's `70.22.Z`. */
const pkdCode = (e: string): string =>
  `CASE WHEN regexp_full_match(regexp_replace(upper(${e}), '[^0-9A-Z]', '', 'g'), '\\d{4}[A-Z]')
     THEN substr(regexp_replace(upper(${e}), '[^0-9A-Z]', '', 'g'), 1, 2) || '.' || substr(regexp_replace(upper(${e}), '[^0-9A-Z]', '', 'g'), 3, 2)
       || '.' || substr(regexp_replace(upper(${e}), '[^0-9A-Z]', '', 'g'), 5, 1) END`;
const krsDate = (e: string): string => `try_strptime(${blank(e)}, '%d.%m.%Y')::DATE`;

const KRS_FILE = family(PL_CAPTURE_PREFIX.krs);
const REGON_FILE = family(PL_CAPTURE_PREFIX.regon);
const CEIDG_FILE = family(PL_CAPTURE_PREFIX.ceidg);

/** What the adapter uses of a KRS extract (`o`, an OdpisAktualny), taken out while the files are read. */
const D = 'o.dane';
const A = `${D}.dzial1`;
const CLOSED_YEAR = `year(${krsDate('o.naglowekA.stanZDnia')}) - 1`;
const forClosedYear = (list: string) =>
  `len(list_filter(${list}, f -> ends_with(trim(f.zaOkresOdDo), '.' || CAST(${CLOSED_YEAR} AS VARCHAR)))) > 0`;
const dzial6Has = (s: string) => `len(list_filter(json_keys(${D}.dzial6), x -> lower(x) LIKE '%${s}%')) > 0`;
/** A label compared across registers, as a hash: upper case, one space between words. */
const labelKey = (e: string) => `hash(upper(regexp_replace(trim(${e}), '\\s+', ' ', 'g')))`;
/**
 * A KRS activity list as PKD rows: the code as the PKD tree writes it, the key of KRS's description of it
 * (a hash: the descriptions of 1.15 million extracts' ~9 million rows are not held), main or not.
 */
const krsActivities = (list: string, main: boolean) =>
  `list_transform(coalesce(${list}, []), x -> {kod: ${pkdCode("coalesce(x.kodDzial, '') || coalesce(x.kodKlasa, '') || coalesce(x.kodPodklasa, '')")},
    raw: concat_ws('.', x.kodDzial, x.kodKlasa, x.kodPodklasa), opis_key: CASE WHEN ${blank('x.opis')} IS NOT NULL THEN ${labelKey('x.opis')} END, main: ${main}})`;
const krsPerson = (p: string, roll: string, text: string) =>
  `{nimi: trim(${p}.imiona.imie || ' ' || ${p}.nazwisko.nazwiskoICzlon), isiku_tyyp: 'F', roll: ${roll},
    roll_tekstina: ${text}, algus_kpv: NULL::DATE}`;
const KRS_COLUMNS: Record<string, string> = {
  name: blank(`${A}.danePodmiotu.nazwa`),
  registered: krsDate('o.naglowekA.dataRejestracjiWKRS'),
  email: blank(`${A}.siedzibaIAdres.adresPocztyElektronicznej`),
  www: blank(`${A}.siedzibaIAdres.adresStronyInternetowej`),
  capital: `TRY_CAST(replace(regexp_replace(${A}.kapital.wysokoscKapitaluZakladowego.wartosc, '[\\s\\x{00A0}]', '', 'g'), ',', '.') AS DOUBLE)`,
  currency: blank(`${A}.kapital.wysokoscKapitaluZakladowego.waluta`),
  people: `list_concat(
      list_transform(list_filter(coalesce(${D}.dzial2.reprezentacja.sklad, []), p -> NOT coalesce(p.czyZawieszona, false)),
        p -> ${krsPerson('p', 'p.funkcjaWOrganie', `coalesce(${caseSql('p.funkcjaWOrganie', PL_ROLE_TEXT)}, p.funkcjaWOrganie)`)}),
      list_transform(coalesce(${D}.dzial2.prokurenci, []),
        p -> ${krsPerson('p', "'PROKURENT'", str(PL_ROLE_TEXT['PROKURENT'] ?? 'Prokurent'))})
    )`,
  filed: forClosedYear(
    `coalesce(${D}.dzial3.wzmiankiOZlozonychDokumentach.wzmiankaOZlozeniuRocznegoSprawozdaniaFinansowego, [])`,
  ),
  audited: `CASE WHEN ${D}.dzial3.wzmiankiOZlozonychDokumentach.wzmiankaOZlozeniuOpiniiBieglegoRewidentaSprawozdaniaZBadania IS NULL THEN NULL
      ELSE ${forClosedYear(`${D}.dzial3.wzmiankiOZlozonychDokumentach.wzmiankaOZlozeniuOpiniiBieglegoRewidentaSprawozdaniaZBadania`)} END`,
  // The activities the extract registers (dzial3): the main one (przewazajaca), then the others.
  krs_pkd: `list_concat(${krsActivities(`${D}.dzial3.przedmiotDzialalnosci.przedmiotPrzewazajacejDzialalnosci`, true)},
    ${krsActivities(`${D}.dzial3.przedmiotDzialalnosci.przedmiotPozostalejDzialalnosci`, false)})`,
  proceeding: `CASE ${PL_DZIAL6_STEMS.map(([s, state]) => `WHEN ${dzial6Has(s)} THEN ${str(state)}`).join(' ')} END`,
  // The unit's own fields, for an extract that has no REGON report.
  regon9: `left(${blank(`${A}.danePodmiotu.identyfikatory.regon`)}, 9)`,
  nip: blank(`${A}.danePodmiotu.identyfikatory.nip`),
  postcode: `${A}.siedzibaIAdres.adres.kodPocztowy`,
  town: `${A}.siedzibaIAdres.adres.miejscowosc`,
  street: `${A}.siedzibaIAdres.adres.ulica`,
  house: `${A}.siedzibaIAdres.adres.nrDomu`,
  flat: `${A}.siedzibaIAdres.adres.nrLokalu`,
  voivodeship: `${A}.siedzibaIAdres.siedziba.wojewodztwo`,
};

/**
 * KRS answers saved one per file (`OdpisAktualny_<KRS>.json`, files.ts KRS_SAVED_ANSWER) as capture rows: the
 * KRS number is the extract's own (else the file name's), the time the file's modification time (so the newer
 * of a saved answer and a harvested one wins), the status 200 for an extract, else the problem+json body's own
 * `status` (the API's 404 for a number without an extract, as `curl -o` saves it); bytes that are not UTF-8
 * are kept as base64, counted and left out like a harvested answer.
 */
const SAVED_KRS: SavedAnswers = {
  match: KRS_SAVED_ANSWER,
  lines: (files) => `SELECT coalesce(json_extract_string(body, '$.odpis.naglowekA.numerKRS'),
      regexp_extract(filename, '${KRS_SAVED_ANSWER.source.slice(1)}', 1)) AS key,
    'OdpisAktualny' AS kind,
    CASE WHEN json_exists(body, '$.odpis') THEN 200
      ELSE coalesce(TRY_CAST(json_extract_string(body, '$.status') AS INTEGER), 200) END AS status,
    strftime(last_modified AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS fetched_at, body,
    CASE WHEN body IS NULL THEN base64(content) END AS body_base64
  FROM (SELECT *, TRY(decode(content)) AS body FROM read_blob(${files}))`,
};

/**
 * KRS: the newest answer per number; 200 is an extract, 204 an entity removed from the register (pl_krs).
 * What the adapter uses of an extract is taken out while the files are read: 1.15 million whole extracts
 * (the nested STRUCT) held until the join took most of a 3 GB limit at scale 1, and PL's staging ran out of
 * memory once the CEIDG answers were read beside them.
 */
async function readKrs(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  await loadCaptures(
    ctx,
    'krs',
    PL_CAPTURE_PREFIX.krs,
    'cap_krs',
    (from) => `SELECT key, kind, status, fetched_at, base64, has_body,
        o.naglowekA.numerKRS IS NOT NULL AS is_odpis,
        ${Object.entries(KRS_COLUMNS)
          .map(([k, e]) => `${e} AS ${k}`)
          .join(', ')}
      FROM (SELECT *, body IS NOT NULL AS has_body,
          CASE WHEN status = 200 AND kind = 'OdpisAktualny'
            THEN TRY_CAST(TRY_CAST(body AS JSON) AS STRUCT(odpis ${KRS_ODPIS_TYPE})).odpis END AS o
        FROM ${from})`,
    SAVED_KRS,
  );
  const number = `lpad(trim(split_part(key, '/', 1)), 10, '0')`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE pl_krs_all AS
    SELECT * FROM (
      SELECT ${number} AS code, * EXCLUDE (key, kind, base64, has_body)
      FROM cap_krs WHERE kind = 'OdpisAktualny' AND status IN (200, 204) AND has_body)
    QUALIFY row_number() OVER (PARTITION BY code ORDER BY status = 200 DESC, fetched_at DESC) = 1`);
  await conn.run(`DELETE FROM pl_krs_all WHERE code IN (
    SELECT ${number} FROM cap_krs WHERE kind = 'OdpisAktualny' AND status IN (200, 204)
    QUALIFY row_number() OVER (PARTITION BY ${number} ORDER BY fetched_at DESC) = 1
      AND status = 204)`);
  await conn.run('DROP TABLE cap_krs');
  await ctx
    .file(KRS_FILE)
    .nulled(
      'answer is not an OdpisAktualny JSON (left out)',
      `SELECT count(*) AS n, any_value(code) AS example FROM pl_krs_all WHERE status = 200 AND NOT is_odpis`,
    );
  await conn.run(`CREATE OR REPLACE TEMP TABLE pl_krs AS
    SELECT * EXCLUDE (status, fetched_at, is_odpis) FROM pl_krs_all WHERE status = 200 AND is_odpis`);
  await conn.run('DROP TABLE pl_krs_all');
}

/** Element names the service spells two ways. */
const SPELLINGS: Readonly<Record<string, string[]>> = {
  dataSkresleniaZRegon: ['dataSkresleniaZRegon', 'dataSkresleniazRegon'],
  numerWRejestrzeEwidencji: ['numerWRejestrzeEwidencji', 'numerWrejestrzeEwidencji'],
  adresStronyinternetowej: ['adresStronyinternetowej', 'adresStronyInternetowej'],
};

/** A field's element names in a legal person's report, then in a sole trader's (never both in one answer). */
function elementNames(f: string): string[] {
  const each = SPELLINGS[f] ?? [f];
  const praw = each.map((n) => `praw_${n}`);
  // Sole traders have no register number; their deletion date is per activity in the CEIDG report.
  if (f === 'numerWRejestrzeEwidencji') return praw;
  const fiz = each.map((n) => `fiz_${n}`);
  if (f === 'dataSkresleniaZRegon')
    fiz.push('fiz_dataSkresleniazRegonDzialalnosci', 'fiz_dataSkresleniaZRegonDzialalnosci');
  return [...praw, ...fiz];
}

/** The PKD entries of a PKD report answer; the values are unescaped in a second step, so that bir_value (a macro) repeats a field, not its match. */
function pkdOf(p: 'praw' | 'fiz'): string {
  const k = PKD_KEYS[p];
  return `list_transform(list_transform(list_filter(${birRecords('body')}, r -> strpos(r, '&lt;${k.kod}&gt;') > 0),
    r -> {kod: ${birMatch('r', k.kod)}, main: ${birMatch('r', k.main)}, version: ${birMatch('r', k.version)}}),
    x -> {kod: bir_value(x.kod), main: bir_value(x.main), version: bir_value(x.version)})`;
}

/**
 * The report an answer holds, numbered so that one comparison picks the unit reports (no IN list: DuckDB
 * turns one into a join that drags the answers through it). NULL for an answer not read.
 */
const REPORTS: readonly string[] = [
  BIR_READ.praw,
  BIR_READ.fizOgolne,
  BIR_READ.fizCeidg,
  BIR_READ.prawPkd,
  BIR_READ.fizPkd,
];

const lookup = (p: 'praw' | 'fiz', f: string) =>
  birLookup('leaves', 'leaf_names', ...elementNames(f).filter((n) => n.startsWith(`${p}_`)));

/** What cap_regon keeps of each REGON answer: its report, unit kind, fields and PKD entries (bir-sql.ts). */
const regonSelect = (
  from: string,
) => `SELECT key, kind, status, fetched_at, base64, has_body, report, is_error, praw_unit, fiz_unit, pkd,
    ${REGON_FIELDS.map((f) => `bir_value(${f}) AS ${f}`).join(', ')}
  FROM (SELECT *, ${REGON_FIELDS.map(
    (f) =>
      `CASE WHEN report = 1 THEN ${lookup('praw', f)} ${f === 'numerWRejestrzeEwidencji' ? '' : `WHEN report <= 3 THEN ${lookup('fiz', f)}`} END AS ${f}`,
  ).join(', ')}
    FROM (SELECT *, CASE WHEN report <= 3 THEN ${birLeafNames('leaves')} END AS leaf_names
      FROM (SELECT key, kind, status, fetched_at, base64, has_body, report,
          report IS NOT NULL AND ${birIsError('body')} AS is_error,
          report IS NOT NULL AND strpos(body, '&lt;praw_regon9&gt;') > 0 AS praw_unit,
          report IS NOT NULL AND strpos(body, '&lt;fiz_regon9&gt;') > 0 AS fiz_unit,
          CASE WHEN report <= 3 THEN ${birLeaves('body')} END AS leaves,
          CASE WHEN report = 4 THEN ${pkdOf('praw')} WHEN report = 5 THEN ${pkdOf('fiz')} END AS pkd
        FROM (SELECT *, body IS NOT NULL AS has_body,
            CASE WHEN status = 200 AND body IS NOT NULL THEN list_position([${REPORTS.map(str).join(', ')}], kind) END AS report
          FROM ${from}))))`;

/**
 * The newest answer per unit of one report (then errors are left out); straight from cap_regon, one report
 * at a time, rather than a deduplicated copy of the whole table.
 */
const newest = (
  kind: string,
) => `(SELECT trim(key) AS regon, * FROM cap_regon WHERE report = ${REPORTS.indexOf(kind) + 1}
  QUALIFY row_number() OVER (PARTITION BY trim(key) ORDER BY fetched_at DESC) = 1)`;
const unitReport = (kind: string) => `(SELECT * FROM ${newest(kind)} WHERE NOT is_error)`;
/** pkd is NULL without a PKD report answer (not known, not none). */
const pkdReport = (kind: string) => `(SELECT regon, pkd FROM ${newest(kind)})`;

/**
 * REGON BIR: each answer is taken apart while the files are read (bir-sql.ts); then the newest answer per
 * unit and report (raw_units, regon_report true).
 */
async function readRegon(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
  await loadCaptures(ctx, 'regon', PL_CAPTURE_PREFIX.regon, 'cap_regon', regonSelect);
  const unitColumns = REGON_FIELDS.map((f) => `${f} VARCHAR`).join(', ');
  await conn.run(`CREATE OR REPLACE TEMP TABLE raw_units (${unitColumns}, sole BOOLEAN,
    pkd STRUCT(kod VARCHAR, main VARCHAR, version VARCHAR)[], regon_report BOOLEAN)`);
  await conn.run(`INSERT INTO raw_units
    SELECT ${REGON_FIELDS.map((f) => `u.${f}`).join(', ')}, false, k.pkd, true
    FROM ${unitReport(BIR_READ.praw)} u LEFT JOIN ${pkdReport(BIR_READ.prawPkd)} k USING (regon)
    WHERE u.praw_unit`);
  // Sole traders: the CEIDG activity report (address, dates, contacts) over the general one (NIP, form).
  await conn.run(`INSERT INTO raw_units
    SELECT ${REGON_FIELDS.map((f) => (f === 'numerWRejestrzeEwidencji' ? 'NULL' : `coalesce(c.${f}, o.${f})`)).join(', ')},
      true, k.pkd, true
    FROM ${unitReport(BIR_READ.fizOgolne)} o FULL JOIN ${unitReport(BIR_READ.fizCeidg)} c USING (regon)
      LEFT JOIN ${pkdReport(BIR_READ.fizPkd)} k USING (regon)
    WHERE coalesce(c.fiz_unit, false) OR coalesce(o.fiz_unit, false)`);
  await conn.run('DROP TABLE cap_regon');
}

/** CEIDG: list entries and details; the details (contacts) win, then the newest answer (pl_ceidg). */
async function readCeidg(ctx: StageContext): Promise<void> {
  await loadCaptures(
    ctx,
    'ceidg',
    PL_CAPTURE_PREFIX.ceidg,
    'cap_ceidg',
    (from) => `SELECT key, kind, status, fetched_at, base64,
      CASE WHEN status = 200 AND kind IN ('firmy', 'firma') AND body IS NOT NULL
        THEN TRY_CAST(TRY_CAST(body AS JSON) AS STRUCT(firmy ${CEIDG_FIRMA_TYPE}[], firma ${CEIDG_FIRMA_TYPE}[])) END AS j
      FROM ${from}`,
  );
  // The newest answer per trader, details first: an aggregate, which spills when memory runs short, where a
  // window over every record's struct would hold them all.
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE pl_ceidg AS
    SELECT code, r.nazwa AS nazwa, r.wlasciciel AS wlasciciel, r.status AS status, r.dataRozpoczecia AS dataRozpoczecia,
      r.email AS email, r.www AS www, r.telefon AS telefon, coalesce(r.adresDzialalnosci, r.adresDzialanosci) AS adres
    FROM (
      SELECT trim(f.wlasciciel.regon) AS code,
        arg_max(f, CASE WHEN kind = 'firma' THEN '1' ELSE '0' END || coalesce(fetched_at, '')) AS r
      FROM (SELECT kind, fetched_at, unnest(coalesce(j.firmy, j.firma)) AS f FROM cap_ceidg WHERE j IS NOT NULL)
      WHERE nullif(trim(f.wlasciciel.regon), '') IS NOT NULL
      GROUP BY ALL)`);
  await ctx.conn.run('DROP TABLE cap_ceidg');
}

/** A KRS extract's own fields, for a unit without a REGON report. */
const KRS_ONLY: Readonly<Record<string, string>> = {
  regon9: 'k.regon9',
  nip: 'k.nip',
  nazwa: 'k.name',
  numerWRejestrzeEwidencji: 'k.code',
  adSiedzKodPocztowy: 'k.postcode',
  adSiedzMiejscowosc_Nazwa: 'k.town',
  adSiedzUlica_Nazwa: 'k.street',
  adSiedzNumerNieruchomosci: 'k.house',
  adSiedzNumerLokalu: 'k.flat',
  adSiedzWojewodztwo_Nazwa: 'k.voivodeship',
};
/** A CEIDG record's own fields, for a sole trader without a REGON report. */
const CEIDG_ONLY: Readonly<Record<string, string>> = {
  regon9: 'c.code',
  nip: blank('c.wlasciciel.nip'),
  nazwa: blank('c.nazwa'),
};

/**
 * Companies come from KRS alone: an extract without a REGON unit is a unit of its own, its address, REGON
 * and NIP read from the extract; a CEIDG trader without a REGON report likewise (raw_units).
 */
async function addUnitsWithoutRegon({ conn }: StageContext): Promise<void> {
  const fields = (from: Readonly<Record<string, string>>) =>
    REGON_FIELDS.map((f) => from[f] ?? 'NULL').join(', ');
  await conn.run(`INSERT INTO raw_units
    SELECT ${fields(KRS_ONLY)}, false, NULL, false
    FROM pl_krs k WHERE NOT EXISTS (SELECT 1 FROM raw_units u WHERE lpad(trim(u.numerWRejestrzeEwidencji), 10, '0') = k.code)`);
  await conn.run(`INSERT INTO raw_units
    SELECT ${fields(CEIDG_ONLY)}, true, NULL, false
    FROM pl_ceidg c WHERE NOT EXISTS (SELECT 1 FROM raw_units u WHERE u.sole AND trim(u.regon9) = c.code)`);
}

/**
 * One aggregate for the served list (main first, then file order) and the counts: an ordered list() and a
 * second grouping of the same rows ran 4.8 million units out of a 3 GB limit. Even so, list states do not
 * spill, and at scale 1 the one pass over 12 million PKD rows ran out of memory after the rest of PL's
 * staging: the units are taken in four parts by hash of their code.
 */
const EMTAK_PARTS = 4;
/*
 * A code is read in PKD 2025 where it is a PKD 2025 podklasa, else as PKD 2007 mapped forward
 * (activity_forward): REGON's `pkdWersja` is not needed for that, and KRS and CEIDG write no version. A
 * unit listing one activity in both editions (REGON during the transition) keeps it once, main first.
 */
const emtakPart = (part: number) => `
  WITH rows AS (
    SELECT code, k, raw, coalesce(l.kood, f.kood) AS kood, is_main
    FROM (
      SELECT code, k, r.kod AS raw, ${pkdCode('r.kod')} AS pkd, r.main = '1' AS is_main
      FROM (SELECT code, unnest(pkd) AS r, generate_subscripts(pkd, 1) AS k FROM ingest_register
        WHERE pkd IS NOT NULL AND hash(code) % ${EMTAK_PARTS} = ${part})
    ) LEFT JOIN activity_leaves l ON l.kood = pkd LEFT JOIN activity_forward f ON f.old = pkd
    QUALIFY coalesce(l.kood, f.kood) IS NULL
      OR row_number() OVER (PARTITION BY code, coalesce(l.kood, f.kood) ORDER BY NOT is_main, k) = 1
  )
  SELECT code,
    ${sortedList('{kood: r.kood, label: l.label, is_main: r.is_main}', ['NOT r.is_main', 'r.k'], 'l.kood IS NOT NULL')} AS emtak,
    count(*) FILTER (WHERE l.kood IS NULL) AS unknown,
    any_value(raw) FILTER (WHERE l.kood IS NULL) AS example
  FROM rows r LEFT JOIN activity_leaves l USING (kood) GROUP BY code`;

/**
 * The KRS extract's activities of the units whose REGON PKD report gave no rows (pl_emtak_krs). An extract
 * names no PKD edition (entries made since 2025 carry PKD 2025 codes, older ones PKD 2007), so its codes are
 * read as every PKD code is: a PKD 2025 podklasa as it is, else as PKD 2007 mapped forward
 * (activity_forward). Its descriptions cannot tell the editions apart without PKD 2007's labels, which the
 * served tree no longer has.
 */
const KRS_EMTAK = `CREATE OR REPLACE TEMP TABLE pl_emtak_krs AS
  WITH rows AS (
    SELECT code, k, x.raw AS raw, x.kod AS pkd, x.main AS is_main, x.opis_key AS opis_key
    FROM (SELECT e.code, unnest(e.krs_pkd) AS x, generate_subscripts(e.krs_pkd, 1) AS k FROM pl_krs e
      WHERE len(e.krs_pkd) > 0 AND e.code IN (SELECT code FROM ingest_register)
        AND e.code NOT IN (SELECT code FROM pl_emtak))
  ), read AS (
    SELECT r.code, r.k, r.raw, r.is_main,
      coalesce(l.kood, f.kood) AS served
    FROM rows r LEFT JOIN activity_leaves l ON l.kood = r.pkd LEFT JOIN activity_forward f ON f.old = r.pkd
  ), chosen AS (
    SELECT code, k, raw, is_main, served AS kood FROM read
    QUALIFY served IS NULL OR row_number() OVER (PARTITION BY code, served ORDER BY NOT is_main, k) = 1
  )
  SELECT code,
    ${sortedList('{kood: c.kood, label: l.label, is_main: c.is_main}', ['NOT c.is_main', 'c.k'], 'l.kood IS NOT NULL')} AS emtak,
    count(*) FILTER (WHERE l.kood IS NULL) AS unknown, any_value(c.raw) FILTER (WHERE l.kood IS NULL) AS unknown_example
  FROM chosen c LEFT JOIN activity_leaves l USING (kood) GROUP BY code`;

/**
 * Activities (pl_emtak): REGON's PKD report where it gives rows (GUS's statistical register, each row tagged
 * with its PKD version), else the KRS extract's list (the registration), onto the served PKD 2025 tree;
 * docs/ingest.md says why.
 */
async function buildActivities(ctx: StageContext): Promise<void> {
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE pl_emtak AS ${emtakPart(0)}`);
  for (let part = 1; part < EMTAK_PARTS; part++)
    await ctx.conn.run(`INSERT INTO pl_emtak ${emtakPart(part)}`);
  await ctx.conn.run(KRS_EMTAK);
  const krs = ctx.file(KRS_FILE);
  await krs.nulled(
    'PKD code neither in PKD 2025 (by its KRS description) nor mapped forward from PKD 2007 (left out of emtak)',
    `SELECT sum(unknown) AS n, any_value(unknown_example) FILTER (WHERE unknown > 0) AS example FROM pl_emtak_krs`,
  );
  await ctx.conn.run(`INSERT INTO pl_emtak BY NAME SELECT code, emtak FROM pl_emtak_krs`);
  await ctx.conn.run('DROP TABLE pl_emtak_krs');
  // Not held through the final join: some 9 million rows at national scale.
  await ctx.conn.run('ALTER TABLE pl_krs DROP COLUMN krs_pkd');
  const regon = ctx.file(REGON_FILE);
  await regon.nulled(
    'PKD code neither in PKD 2025 nor mapped forward from PKD 2007 (left out of emtak)',
    `SELECT sum(unknown) AS n, any_value(example) FILTER (WHERE unknown > 0) AS example FROM pl_emtak`,
  );
}

const TERYT = `trim(u.adSiedzWojewodztwo_Symbol) || trim(u.adSiedzPowiat_Symbol) || trim(u.adSiedzGmina_Symbol)`;

/** What the three sources leave unknown about a unit, counted per file. */
async function countGaps(ctx: StageContext): Promise<void> {
  const [krs, regon, ceidg] = [KRS_FILE, REGON_FILE, CEIDG_FILE].map((f) => ctx.file(f));
  await regon!.nulled(
    'TERYT gmina code not in the location tree (ehak_kood left empty)',
    `SELECT count(*) AS n, any_value(${TERYT}) AS example FROM ingest_register u
     WHERE ${TERYT} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM location_leaves l WHERE l.kood = ${TERYT})`,
  );
  if (ctx.has('regon')) {
    await krs!.nulled(
      'KRS entity in REGON without an extract (KRS fields left empty)',
      `SELECT count(*) AS n, any_value(code) AS example FROM ingest_register u
       WHERE ${blank('u.numerWRejestrzeEwidencji')} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pl_krs k WHERE k.code = u.code)`,
    );
    await regon!.nulled(
      'KRS extract without a REGON report (REGON fields left empty)',
      `SELECT count(*) AS n, any_value(code) AS example FROM ingest_register u WHERE NOT u.regon_report AND NOT u.sole`,
    );
  }
  await ceidg!.nulled(
    'CEIDG status not a known value (REGON dates used)',
    `SELECT count(*) AS n, any_value(status) AS example FROM pl_ceidg
     WHERE trim(status) NOT IN (${Object.keys(PL_CEIDG_STATES).map(str).join(', ')})`,
  );
}

const IN_KRS = `${blank('u.numerWRejestrzeEwidencji')} IS NOT NULL`;
const REGON_STATE = `CASE WHEN ${blank('u.dataSkresleniaZRegon')} IS NOT NULL THEN 'WYKRESLONY'
  WHEN ${blank('u.dataZawieszeniaDzialalnosci')} IS NOT NULL
    AND ${blank('u.dataZawieszeniaDzialalnosci')} > coalesce(${blank('u.dataWznowieniaDzialalnosci')}, '') THEN 'ZAWIESZONY'
  ELSE 'AKTYWNY' END`;
const KRS_STATE = `CASE WHEN ${blank('u.dataSkresleniaZRegon')} IS NOT NULL THEN 'WYKRESLONY' ELSE coalesce(k.proceeding, 'AKTYWNY') END`;
const CEIDG_KNOWN = `trim(c.status) IN (${Object.keys(PL_CEIDG_STATES).map(str).join(', ')})`;
/** A unit's state (`field` of it) from CEIDG for a sole trader, else KRS for a KRS entity, else REGON. */
const state = (field: keyof PlState) => `CASE
  WHEN u.sole AND ${CEIDG_KNOWN} THEN ${caseSql('trim(c.status)', fieldOf(PL_CEIDG_STATES, field))}
  WHEN ${IN_KRS} THEN ${caseSql(KRS_STATE, fieldOf(PL_KRS_STATES, field))}
  ELSE ${caseSql(REGON_STATE, fieldOf(PL_REGON_STATES, field))} END`;
// A village address has no street: `8, 82-200 Grobelno`.
const REGON_ADDRESS = `coalesce(${blank('u.adSiedzUlica_Nazwa')} || ' ', '') || trim(u.adSiedzNumerNieruchomosci)
  || coalesce('/' || ${blank('u.adSiedzNumerLokalu')}, '') || ', ' || ${postcode('u.adSiedzKodPocztowy')} || ' ' || trim(u.adSiedzMiejscowosc_Nazwa)`;
const CEIDG_ADDRESS = `coalesce(${blank('c.adres.ulica')} || ' ', '') || trim(c.adres.budynek) || coalesce('/' || ${blank('c.adres.lokal')}, '')
  || ', ' || coalesce(${blank('c.adres.kodPocztowy')}, ${blank('c.adres.kod')}) || ' ' || trim(c.adres.miasto)`;
const ASUKOHT = `CASE WHEN u.sole AND c.code IS NOT NULL THEN ${CEIDG_ADDRESS} ELSE ${REGON_ADDRESS} END`;
const WOJ = `lower(CASE WHEN u.sole AND c.code IS NOT NULL THEN ${blank('c.adres.wojewodztwo')} ELSE ${blank('u.adSiedzWojewodztwo_Nazwa')} END)`;
const PHONES = `list_filter(list_transform(string_split(coalesce(CASE WHEN u.sole THEN c.telefon ELSE u.numerTelefonu END, ''), ','),
  x -> trim(x)), x -> x <> '')`;
const PHONE_SRC = `CASE WHEN u.sole THEN 'pl_ceidg' ELSE 'pl_regon' END`;
const EMAIL = `CASE WHEN u.sole THEN ${blank('c.email')} WHEN ${IN_KRS} THEN k.email ELSE ${blank('u.adresEmail')} END`;
const WWW = `CASE WHEN u.sole THEN ${blank('c.www')} WHEN ${IN_KRS} THEN k.www ELSE ${blank('u.adresStronyinternetowej')} END`;
const WEB_SRC = `CASE WHEN u.sole THEN 'pl_ceidg' WHEN ${IN_KRS} THEN 'pl_krs' ELSE 'pl_regon' END`;
const phone = (liik: 'TEL' | 'MOB') => {
  const which = `list_filter(${PHONES}, x -> ${liik === 'TEL' ? 'NOT ' : ''}regexp_full_match(x, '${PL_MOBILE_PATTERN}'))`;
  return `CASE WHEN len(${which}) > 0 THEN {liik: '${liik}', sisu: ${which}[1], "source": ${PHONE_SRC}} END`;
};
const NAME = `coalesce(CASE WHEN u.sole THEN ${blank('c.nazwa')} ELSE k.name END, ${blank('u.nazwa')})`;

/** stage_companies: the contract's columns over the tables above. */
const buildPolandCompanies = buildCompanies({
  values: {
    registrikood: 'u.code',
    arinimi: NAME,
    oiguslik_vorm: blank('u.szczegolnaFormaPrawna_Symbol'),
    oiguslik_vorm_tekstina: blank('u.szczegolnaFormaPrawna_Nazwa'),
    staatus: state('staatus'),
    staatus_tekstina: state('text'),
    source_status: `CASE WHEN u.sole AND ${CEIDG_KNOWN} THEN trim(c.status) WHEN ${IN_KRS} THEN ${KRS_STATE} ELSE ${REGON_STATE} END`,
    esmaregistreerimise_kpv: `coalesce(CASE WHEN u.sole THEN TRY_CAST(${blank('c.dataRozpoczecia')} AS DATE)
      WHEN ${IN_KRS} THEN k.registered END, TRY_CAST(${blank('u.dataPowstania')} AS DATE))`,
    ehak_kood: 'loc.kood',
    ehak_nimetus: 'loc.name',
    asukoht: ASUKOHT,
    aadress_text: `${ASUKOHT} || coalesce(', woj. ' || ${WOJ}, '')`,
    postcode: `CASE WHEN u.sole AND c.code IS NOT NULL THEN coalesce(${blank('c.adres.kodPocztowy')}, ${blank('c.adres.kod')})
      ELSE ${postcode('u.adSiedzKodPocztowy')} END`,
    kapital: `CASE WHEN k.capital IS NOT NULL THEN printf('%.2f', k.capital) || coalesce(' ' || k.currency, '') END`,
    kapital_amount: 'k.capital',
    kapital_currency: 'CASE WHEN k.capital IS NOT NULL THEN k.currency END',
    contacts: `list_filter([
      CASE WHEN ${EMAIL} IS NOT NULL THEN {liik: 'EMAIL', sisu: ${EMAIL}, "source": ${WEB_SRC}} END,
      CASE WHEN ${WWW} IS NOT NULL THEN {liik: 'WWW', sisu: ${WWW}, "source": ${WEB_SRC}} END,
      ${phone('TEL')},
      ${phone('MOB')}
    ], x -> x IS NOT NULL)`,
    // Activity codes are REGON's, else the KRS extract's; the contract's list is never NULL, so a unit neither gives has [].
    emtak: 'coalesce(e.emtak, [])',
    people: 'coalesce(k.people, [])',
    annual_report_filed: `CASE WHEN ${IN_KRS} THEN k.filed END`,
    annual_report_audited: `CASE WHEN ${IN_KRS} THEN CASE WHEN k.filed THEN k.audited WHEN NOT k.filed THEN false END END`,
    pl_regon: blank('u.regon9'),
    pl_nip: blank('u.nip'),
    is_sole_trader: 'u.sole',
    not_for_sale: 'u.sole',
  },
  // CEIDG rows belong to sole traders only. The join says so with a second equality, not with `AND u.sole`:
  // a condition on the left side alone turns DuckDB's hash join into a blockwise nested loop (4.8 million
  // units x 2.5 million records: hours at scale 1; 1M x 500k took 386 s).
  from: `ingest_register u
    LEFT JOIN pl_krs k ON k.code = u.code
    LEFT JOIN (SELECT *, true AS for_sole FROM pl_ceidg) c ON c.code = u.code AND c.for_sole = u.sole
    LEFT JOIN pl_emtak e ON e.code = u.code
    LEFT JOIN location_leaves loc ON loc.kood = ${TERYT}`,
  noHistory: true,
});

const birMacros: StageStep = ({ conn }) => createBirMacros(conn);

/** One unit per KRS number, else REGON (ingest_register), its rejects under the file family that made it. */
async function keyUnits(ctx: StageContext): Promise<void> {
  const units = ctx.file(ctx.has('regon') ? REGON_FILE : KRS_FILE, 'raw_units');
  const code = `CASE WHEN ${blank('numerWRejestrzeEwidencji')} IS NOT NULL THEN lpad(trim(numerWRejestrzeEwidencji), 10, '0') ELSE trim(regon9) END`;
  await units.keyRows('ingest_register', code, { checkRule: true });
}

const stagePoland = stageSteps({ register: 'KRS, REGON (GUS), CEIDG', reader: 'ingest/official/pl' }, [
  birMacros,
  readKrs,
  readRegon,
  readCeidg,
  addUnitsWithoutRegon,
  keyUnits,
  buildActivities,
  countGaps,
  buildPolandCompanies,
]);

export const PL_ADAPTER: CountryAdapter = { country: 'PL', files: PL_FILES, stage: stagePoland };

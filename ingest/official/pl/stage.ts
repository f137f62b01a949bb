import { sortedList } from '../../../src/engine/batch-sql.ts';
import type { StageResult } from '../../pipeline/publish.ts';
import { createActivityLeaves, createLocationLeaves } from '../activity-codes.ts';
import fs from 'node:fs';
import { queryRows } from '../../pipeline/sql.ts';
import { countNulled, keyRows } from '../rows.ts';
import { contractCompaniesSql, createEmptyHistory, searchNameSql, searchPeopleSql } from '../stage-sql.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import {
  PL_CEIDG_STATES,
  PL_DZIAL6_STEMS,
  PL_KRS_STATES,
  PL_MOBILE_PATTERN,
  PL_PKD_VERSION,
  PL_REGON_STATES,
  PL_ROLE_TEXT,
  type PlState,
} from './codes.ts';
import {
  birMatch,
  birIsError,
  birLeafNames,
  birLeaves,
  birLookup,
  birRecords,
  createBirMacros,
} from './bir-sql.ts';
import {
  BIR_READ,
  CEIDG_FIRMA_TYPE,
  KRS_ODPIS_TYPE,
  PKD_KEYS,
  PL_CAPTURE_PREFIX,
  PL_FILES,
  REGON_FIELDS,
} from './files.ts';

const str = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const blank = (e: string): string => `nullif(trim(${e}), '')`;
const caseOf = (expr: string, table: Readonly<Record<string, string>>): string =>
  `CASE ${expr} ${Object.entries(table)
    .map(([k, v]) => `WHEN ${str(k)} THEN ${str(v)}`)
    .join(' ')} END`;
const pick = (table: Readonly<Record<string, PlState>>, field: keyof PlState): Record<string, string> =>
  Object.fromEntries(Object.entries(table).map(([k, v]) => [k, v[field]]));
/** `69518` → `69-518`. */
const postcode = (e: string): string =>
  `CASE WHEN regexp_full_match(trim(${e}), '\\d{5}') THEN substr(trim(${e}), 1, 2) || '-' || substr(trim(${e}), 3) ELSE ${blank(e)} END`;
/** `7022Z`, `70.22.Z` → the PKD tree's `70.22.Z`. */
const pkdCode = (e: string): string =>
  `CASE WHEN regexp_full_match(regexp_replace(upper(${e}), '[^0-9A-Z]', '', 'g'), '\\d{4}[A-Z]')
     THEN substr(regexp_replace(upper(${e}), '[^0-9A-Z]', '', 'g'), 1, 2) || '.' || substr(regexp_replace(upper(${e}), '[^0-9A-Z]', '', 'g'), 3, 2)
       || '.' || substr(regexp_replace(upper(${e}), '[^0-9A-Z]', '', 'g'), 5, 1) END`;
const krsDate = (e: string): string => `try_strptime(${blank(e)}, '%d.%m.%Y')::DATE`;

/** `prefix_*.jsonl` as one name for messages about a family of capture files. */
const family = (prefix: string): string => `${prefix}_*.jsonl`;

/**
 * SQL reading capture files (`files`, a SQL list of paths) with DuckDB's newline-delimited JSON reader:
 * columns `key`, `kind`, `status`, `fetched_at`, `body` (unescaped by the reader) and `body_base64`; a line
 * that is not JSON (the cut last line of a killed harvest) is left out. Reading the lines as text and
 * matching the still-escaped REGON bodies was tried and was slower: at scale 0.05 the reader is about a
 * fifth of the REGON pass's CPU time; the rest is taking the BIR answers apart (docs/ingest.md).
 */
export function captureLines(files: string): string {
  const columns = `{key: 'VARCHAR', kind: 'VARCHAR', status: 'INTEGER', fetched_at: 'VARCHAR', body: 'VARCHAR', body_base64: 'VARCHAR'}`;
  return `read_json(${files}, format = 'newline_delimited', columns = ${columns}, ignore_errors = true,
    maximum_object_size = 268435456)`;
}

/**
 * Loads every capture file of a source (JSON lines, one answer each) into `table`, or an empty table when
 * the source is absent. `select(from)` is the query of what the table keeps of each line of `from` (columns
 * `key`, `kind`, `status`, `fetched_at`, `body`, and `base64`, which it must keep): what the adapter needs
 * is taken from the bodies in this one streaming pass, so the bodies themselves (about 27 GB of REGON
 * answers at scale 1) are never held in a table. A last line cut by a killed harvest
 * is skipped and counted; an answer stored as base64 (not UTF-8) is counted and left out.
 */
async function loadCaptures(
  ctx: StageContext,
  key: string,
  prefix: string,
  table: string,
  select: (from: string) => string,
): Promise<boolean> {
  const { conn, country, report } = ctx;
  const files = ctx.sources.many(key);
  const name = family(prefix);
  const load = (from: string) => `CREATE OR REPLACE TEMP TABLE ${table} AS
    ${select(`(SELECT *, body IS NULL AND body_base64 IS NOT NULL AS base64 FROM ${from})`)}`;
  if (files.length === 0) {
    await conn.run(
      load(`(SELECT NULL::VARCHAR AS key, NULL::VARCHAR AS kind, NULL::INTEGER AS status, NULL::VARCHAR AS fetched_at,
        NULL::VARCHAR AS body, NULL::VARCHAR AS body_base64 WHERE false)`),
    );
    return false;
  }
  let cut = 0;
  let cutExample: string | null = null;
  for (const file of files) {
    const size = fs.statSync(file).size;
    // A gzipped capture (an operator's archive of an old run) was whole when it was compressed.
    if (size === 0 || file.toLowerCase().endsWith('.gz')) continue;
    const fd = fs.openSync(file, 'r');
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    fs.closeSync(fd);
    if (last[0] !== 0x0a) {
      cut++;
      cutExample ??= ctx.sources.displayName(file);
    }
  }
  await report.stage(
    country,
    `read ${name} (${files.length} file${files.length === 1 ? '' : 's'})`,
    async () => {
      await conn.run(load(captureLines(`[${files.map((f) => str(f)).join(', ')}]`)));
      const n = Number((await queryRows(conn, `SELECT count(*)::BIGINT AS n FROM ${table}`))[0]?.['n'] ?? 0);
      report.file({
        country,
        file: name,
        rowsRead: n + cut,
        rowsLoaded: n,
        bytes: files.reduce((a, f) => a + fs.statSync(f).size, 0),
      });
      return n;
    },
    (n) => n,
  );
  report.reject(
    country,
    name,
    'answer cut off at the end of a capture file (a harvest killed mid-write)',
    cut,
    'row dropped',
    cutExample,
  );
  await countNulled(conn, {
    country,
    file: name,
    report,
    reason: 'answer not UTF-8 (kept as base64 by the harvest; left out)',
    sql: `SELECT count(*) AS n, any_value(key) AS example FROM ${table} WHERE base64`,
  });
  return true;
}

async function stagePoland(ctx: StageContext): Promise<StageResult> {
  const { conn, reference, country, report } = ctx;
  await createActivityLeaves(conn, reference);
  await createLocationLeaves(conn, reference);
  await createBirMacros(conn);
  const krsFile = family(PL_CAPTURE_PREFIX.krs);
  const regonFile = family(PL_CAPTURE_PREFIX.regon);
  const ceidgFile = family(PL_CAPTURE_PREFIX.ceidg);

  // KRS: the newest answer per number; 200 is an extract, 204 an entity removed from the register. What the
  // adapter uses of an extract is taken out while the files are read: 1.15 million whole extracts (the
  // nested STRUCT) held until the join took most of a 3 GB limit at scale 1, and PL's staging ran out of
  // memory once the CEIDG answers were read beside them.
  const d = 'o.dane';
  const closed = `year(${krsDate('o.naglowekA.stanZDnia')}) - 1`;
  const forYear = (list: string) =>
    `len(list_filter(${list}, f -> ends_with(trim(f.zaOkresOdDo), '.' || CAST(${closed} AS VARCHAR)))) > 0`;
  const stem = (s: string) => `len(list_filter(json_keys(${d}.dzial6), x -> lower(x) LIKE '%${s}%')) > 0`;
  const a = `${d}.dzial1`;
  const krsColumns: Record<string, string> = {
    name: blank(`${a}.danePodmiotu.nazwa`),
    registered: krsDate('o.naglowekA.dataRejestracjiWKRS'),
    email: blank(`${a}.siedzibaIAdres.adresPocztyElektronicznej`),
    www: blank(`${a}.siedzibaIAdres.adresStronyInternetowej`),
    capital: `TRY_CAST(replace(regexp_replace(${a}.kapital.wysokoscKapitaluZakladowego.wartosc, '[\\s\\x{00A0}]', '', 'g'), ',', '.') AS DOUBLE)`,
    currency: blank(`${a}.kapital.wysokoscKapitaluZakladowego.waluta`),
    people: `list_concat(
        list_transform(list_filter(coalesce(${d}.dzial2.reprezentacja.sklad, []), p -> NOT coalesce(p.czyZawieszona, false)),
          p -> {nimi: trim(p.imiona.imie || ' ' || p.nazwisko.nazwiskoICzlon), isiku_tyyp: 'F', roll: p.funkcjaWOrganie,
                roll_tekstina: coalesce(${caseOf('p.funkcjaWOrganie', PL_ROLE_TEXT)}, p.funkcjaWOrganie), algus_kpv: NULL::DATE}),
        list_transform(coalesce(${d}.dzial2.prokurenci, []),
          p -> {nimi: trim(p.imiona.imie || ' ' || p.nazwisko.nazwiskoICzlon), isiku_tyyp: 'F', roll: 'PROKURENT',
                roll_tekstina: ${str(PL_ROLE_TEXT['PROKURENT'] ?? 'Prokurent')}, algus_kpv: NULL::DATE})
      )`,
    filed: forYear(
      `coalesce(${d}.dzial3.wzmiankiOZlozonychDokumentach.wzmiankaOZlozeniuRocznegoSprawozdaniaFinansowego, [])`,
    ),
    audited: `CASE WHEN ${d}.dzial3.wzmiankiOZlozonychDokumentach.wzmiankaOZlozeniuOpiniiBieglegoRewidentaSprawozdaniaZBadania IS NULL THEN NULL
        ELSE ${forYear(`${d}.dzial3.wzmiankiOZlozonychDokumentach.wzmiankaOZlozeniuOpiniiBieglegoRewidentaSprawozdaniaZBadania`)} END`,
    proceeding: `CASE ${PL_DZIAL6_STEMS.map(([s, state]) => `WHEN ${stem(s)} THEN ${str(state)}`).join(' ')} END`,
    // The unit's own fields, for an extract that has no REGON report.
    regon9: `left(${blank(`${a}.danePodmiotu.identyfikatory.regon`)}, 9)`,
    nip: blank(`${a}.danePodmiotu.identyfikatory.nip`),
    postcode: `${a}.siedzibaIAdres.adres.kodPocztowy`,
    town: `${a}.siedzibaIAdres.adres.miejscowosc`,
    street: `${a}.siedzibaIAdres.adres.ulica`,
    house: `${a}.siedzibaIAdres.adres.nrDomu`,
    flat: `${a}.siedzibaIAdres.adres.nrLokalu`,
    voivodeship: `${a}.siedzibaIAdres.siedziba.wojewodztwo`,
  };
  await loadCaptures(
    ctx,
    'krs',
    PL_CAPTURE_PREFIX.krs,
    'cap_krs',
    (from) => `SELECT key, kind, status, fetched_at, base64, has_body,
        o.naglowekA.numerKRS IS NOT NULL AS is_odpis,
        ${Object.entries(krsColumns)
          .map(([k, e]) => `${e} AS ${k}`)
          .join(', ')}
      FROM (SELECT *, body IS NOT NULL AS has_body,
          CASE WHEN status = 200 AND kind = 'OdpisAktualny'
            THEN TRY_CAST(TRY_CAST(body AS JSON) AS STRUCT(odpis ${KRS_ODPIS_TYPE})).odpis END AS o
        FROM ${from})`,
  );
  await conn.run(`CREATE OR REPLACE TEMP TABLE pl_krs_all AS
    SELECT * FROM (
      SELECT lpad(trim(split_part(key, '/', 1)), 10, '0') AS code, * EXCLUDE (key, kind, base64, has_body)
      FROM cap_krs WHERE kind = 'OdpisAktualny' AND status IN (200, 204) AND has_body)
    QUALIFY row_number() OVER (PARTITION BY code ORDER BY status = 200 DESC, fetched_at DESC) = 1`);
  await conn.run(`DELETE FROM pl_krs_all WHERE code IN (
    SELECT lpad(trim(split_part(key, '/', 1)), 10, '0') FROM cap_krs WHERE kind = 'OdpisAktualny' AND status IN (200, 204)
    QUALIFY row_number() OVER (PARTITION BY lpad(trim(split_part(key, '/', 1)), 10, '0') ORDER BY fetched_at DESC) = 1
      AND status = 204)`);
  await conn.run('DROP TABLE cap_krs');
  await countNulled(conn, {
    country,
    file: krsFile,
    report,
    reason: 'answer is not an OdpisAktualny JSON (left out)',
    sql: `SELECT count(*) AS n, any_value(code) AS example FROM pl_krs_all WHERE status = 200 AND NOT is_odpis`,
  });
  await conn.run(`CREATE OR REPLACE TEMP TABLE pl_krs AS
    SELECT * EXCLUDE (status, fetched_at, is_odpis) FROM pl_krs_all WHERE status = 200 AND is_odpis`);
  await conn.run('DROP TABLE pl_krs_all');

  // REGON BIR: each answer is taken apart while the files are read (bir-sql.ts); then the newest answer
  // per unit and report.
  const spellings: Record<string, string[]> = {
    dataSkresleniaZRegon: ['dataSkresleniaZRegon', 'dataSkresleniazRegon'],
    numerWRejestrzeEwidencji: ['numerWRejestrzeEwidencji', 'numerWrejestrzeEwidencji'],
    adresStronyinternetowej: ['adresStronyinternetowej', 'adresStronyInternetowej'],
  };
  // A field's element names in a legal person's report, then in a sole trader's (never both in one answer).
  const elementNames = (f: string): string[] => {
    const each = spellings[f] ?? [f];
    const praw = each.map((n) => `praw_${n}`);
    // Sole traders have no register number; their deletion date is per activity in the CEIDG report.
    if (f === 'numerWRejestrzeEwidencji') return praw;
    const fiz = each.map((n) => `fiz_${n}`);
    if (f === 'dataSkresleniaZRegon')
      fiz.push('fiz_dataSkresleniazRegonDzialalnosci', 'fiz_dataSkresleniaZRegonDzialalnosci');
    return [...praw, ...fiz];
  };
  // The values are unescaped in a second step, so that bir_value (a macro) repeats a field, not its match.
  const pkdOf = (p: 'praw' | 'fiz') => {
    const k = PKD_KEYS[p];
    return `list_transform(list_transform(list_filter(${birRecords('body')}, r -> strpos(r, '&lt;${k.kod}&gt;') > 0),
      r -> {kod: ${birMatch('r', k.kod)}, main: ${birMatch('r', k.main)}, version: ${birMatch('r', k.version)}}),
      x -> {kod: bir_value(x.kod), main: bir_value(x.main), version: bir_value(x.version)})`;
  };
  // The report an answer holds, numbered so that one comparison picks the unit reports (no IN list: DuckDB
  // turns one into a join that drags the answers through it). NULL for an answer not read.
  const reports: readonly string[] = [
    BIR_READ.praw,
    BIR_READ.fizOgolne,
    BIR_READ.fizCeidg,
    BIR_READ.prawPkd,
    BIR_READ.fizPkd,
  ];
  const lookup = (p: 'praw' | 'fiz', f: string) =>
    birLookup('leaves', 'leaf_names', ...elementNames(f).filter((n) => n.startsWith(`${p}_`)));
  const haveRegon = await loadCaptures(
    ctx,
    'regon',
    PL_CAPTURE_PREFIX.regon,
    'cap_regon',
    (
      from,
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
                CASE WHEN status = 200 AND body IS NOT NULL THEN list_position([${reports.map(str).join(', ')}], kind) END AS report
              FROM ${from}))))`,
  );
  // The newest answer per unit of one report (then errors are left out); straight from cap_regon, one
  // report at a time, rather than a deduplicated copy of the whole table.
  const newest = (
    kind: string,
  ) => `(SELECT trim(key) AS regon, * FROM cap_regon WHERE report = ${reports.indexOf(kind) + 1}
    QUALIFY row_number() OVER (PARTITION BY trim(key) ORDER BY fetched_at DESC) = 1)`;
  const report1 = (kind: string) => `(SELECT * FROM ${newest(kind)} WHERE NOT is_error)`;
  // pkd is NULL without a PKD report answer (not known, not none).
  const pkdReport = (kind: string) => `(SELECT regon, pkd FROM ${newest(kind)})`;
  const unitColumns = REGON_FIELDS.map((f) => `${f} VARCHAR`).join(', ');
  // regon_report: the unit has a REGON report.
  await conn.run(`CREATE OR REPLACE TEMP TABLE raw_units (${unitColumns}, sole BOOLEAN,
    pkd STRUCT(kod VARCHAR, main VARCHAR, version VARCHAR)[], regon_report BOOLEAN)`);
  await conn.run(`INSERT INTO raw_units
    SELECT ${REGON_FIELDS.map((f) => `u.${f}`).join(', ')}, false, k.pkd, true
    FROM ${report1(BIR_READ.praw)} u LEFT JOIN ${pkdReport(BIR_READ.prawPkd)} k USING (regon)
    WHERE u.praw_unit`);
  // Sole traders: the CEIDG activity report (address, dates, contacts) over the general one (NIP, form).
  await conn.run(`INSERT INTO raw_units
    SELECT ${REGON_FIELDS.map((f) => (f === 'numerWRejestrzeEwidencji' ? 'NULL' : `coalesce(c.${f}, o.${f})`)).join(', ')},
      true, k.pkd, true
    FROM ${report1(BIR_READ.fizOgolne)} o FULL JOIN ${report1(BIR_READ.fizCeidg)} c USING (regon)
      LEFT JOIN ${pkdReport(BIR_READ.fizPkd)} k USING (regon)
    WHERE coalesce(c.fiz_unit, false) OR coalesce(o.fiz_unit, false)`);
  await conn.run('DROP TABLE cap_regon');

  // CEIDG: list entries and details; the details (contacts) win, then the newest answer.
  const haveCeidg = await loadCaptures(
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
  await conn.run(`CREATE OR REPLACE TEMP TABLE pl_ceidg AS
    SELECT code, r.nazwa AS nazwa, r.wlasciciel AS wlasciciel, r.status AS status, r.dataRozpoczecia AS dataRozpoczecia,
      r.email AS email, r.www AS www, r.telefon AS telefon, coalesce(r.adresDzialalnosci, r.adresDzialanosci) AS adres
    FROM (
      SELECT trim(f.wlasciciel.regon) AS code,
        arg_max(f, CASE WHEN kind = 'firma' THEN '1' ELSE '0' END || coalesce(fetched_at, '')) AS r
      FROM (SELECT kind, fetched_at, unnest(coalesce(j.firmy, j.firma)) AS f FROM cap_ceidg WHERE j IS NOT NULL)
      WHERE nullif(trim(f.wlasciciel.regon), '') IS NOT NULL
      GROUP BY ALL)`);
  await conn.run('DROP TABLE cap_ceidg');

  // Companies come from KRS alone: an extract without a REGON unit is a unit of its own, its address,
  // REGON and NIP read from the extract; a CEIDG trader without a REGON report likewise.
  const krsOnly: Record<string, string> = {
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
  await conn.run(`INSERT INTO raw_units
    SELECT ${REGON_FIELDS.map((f) => krsOnly[f] ?? 'NULL').join(', ')}, false, NULL, false
    FROM pl_krs k WHERE NOT EXISTS (SELECT 1 FROM raw_units u WHERE lpad(trim(u.numerWRejestrzeEwidencji), 10, '0') = k.code)`);
  const ceidgOnly: Record<string, string> = {
    regon9: 'c.code',
    nip: blank('c.wlasciciel.nip'),
    nazwa: blank('c.nazwa'),
  };
  await conn.run(`INSERT INTO raw_units
    SELECT ${REGON_FIELDS.map((f) => ceidgOnly[f] ?? 'NULL').join(', ')}, true, NULL, false
    FROM pl_ceidg c WHERE NOT EXISTS (SELECT 1 FROM raw_units u WHERE u.sole AND trim(u.regon9) = c.code)`);

  await keyRows(conn, {
    country,
    from: 'raw_units',
    to: 'ingest_register',
    codeSql: `CASE WHEN ${blank('numerWRejestrzeEwidencji')} IS NOT NULL THEN lpad(trim(numerWRejestrzeEwidencji), 10, '0') ELSE trim(regon9) END`,
    file: haveRegon ? regonFile : krsFile,
    report,
    checkRule: true,
  });
  // One aggregate for the served list (main first, then file order) and the counts: an ordered list()
  // and a second grouping of the same rows ran 4.8 million units out of a 3 GB limit. Even so, list states
  // do not spill, and at scale 1 the one pass over 12 million PKD rows ran out of memory after the rest of
  // PL's staging: the units are taken in four parts by hash of their code.
  const served = `r.version = ${str(PL_PKD_VERSION)} AND l.kood IS NOT NULL`;
  const EMTAK_PARTS = 4;
  const emtakPart = (part: number) => `
    WITH rows AS (
      SELECT code, k, r.kod AS raw, ${pkdCode('r.kod')} AS kood, r.main = '1' AS is_main,
        coalesce(${blank('r.version')}, ${str(PL_PKD_VERSION)}) AS version
      FROM (SELECT code, unnest(pkd) AS r, generate_subscripts(pkd, 1) AS k FROM ingest_register
        WHERE pkd IS NOT NULL AND hash(code) % ${EMTAK_PARTS} = ${part})
    )
    SELECT code,
      ${sortedList('{kood: r.kood, label: l.label, is_main: r.is_main}', ['NOT r.is_main', 'r.k'], served)} AS emtak,
      count(*) FILTER (WHERE r.version <> ${str(PL_PKD_VERSION)}) AS other_version,
      count(*) FILTER (WHERE r.version = ${str(PL_PKD_VERSION)} AND l.kood IS NULL) AS unknown,
      any_value(raw) FILTER (WHERE r.version = ${str(PL_PKD_VERSION)} AND l.kood IS NULL) AS example
    FROM rows r LEFT JOIN activity_leaves l USING (kood) GROUP BY code`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE pl_emtak AS ${emtakPart(0)}`);
  for (let part = 1; part < EMTAK_PARTS; part++) await conn.run(`INSERT INTO pl_emtak ${emtakPart(part)}`);
  await countNulled(conn, {
    country,
    file: regonFile,
    report,
    reason: `PKD rows of another version than ${PL_PKD_VERSION} (skipped: no correspondence to the served PKD 2007 tree)`,
    sql: `SELECT sum(other_version) AS n, NULL AS example FROM pl_emtak`,
  });
  await countNulled(conn, {
    country,
    file: regonFile,
    report,
    reason: 'PKD code not in the PKD tree (left out of emtak)',
    sql: `SELECT sum(unknown) AS n, any_value(example) FILTER (WHERE unknown > 0) AS example FROM pl_emtak`,
  });
  const teryt = `trim(u.adSiedzWojewodztwo_Symbol) || trim(u.adSiedzPowiat_Symbol) || trim(u.adSiedzGmina_Symbol)`;
  await countNulled(conn, {
    country,
    file: regonFile,
    report,
    reason: 'TERYT gmina code not in the location tree (ehak_kood left empty)',
    sql: `SELECT count(*) AS n, any_value(${teryt}) AS example FROM ingest_register u
          WHERE ${teryt} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM location_leaves l WHERE l.kood = ${teryt})`,
  });
  if (haveRegon) {
    await countNulled(conn, {
      country,
      file: krsFile,
      report,
      reason: 'KRS entity in REGON without an extract (KRS fields left empty)',
      sql: `SELECT count(*) AS n, any_value(code) AS example FROM ingest_register u
          WHERE ${blank('u.numerWRejestrzeEwidencji')} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pl_krs k WHERE k.code = u.code)`,
    });
    await countNulled(conn, {
      country,
      file: regonFile,
      report,
      reason: 'KRS extract without a REGON report (REGON fields left empty)',
      sql: `SELECT count(*) AS n, any_value(code) AS example FROM ingest_register u WHERE NOT u.regon_report AND NOT u.sole`,
    });
  }

  await countNulled(conn, {
    country,
    file: ceidgFile,
    report,
    reason: 'CEIDG status not a known value (REGON dates used)',
    sql: `SELECT count(*) AS n, any_value(status) AS example FROM pl_ceidg
          WHERE trim(status) NOT IN (${Object.keys(PL_CEIDG_STATES).map(str).join(', ')})`,
  });
  // Activity codes are REGON's; the contract's list is never NULL, so a unit without a PKD answer has [].
  const emtakSql = 'coalesce(e.emtak, [])';
  void haveCeidg;

  await createEmptyHistory(conn);
  await report.stage(country, 'build companies', async () => {
    const inKrs = `${blank('u.numerWRejestrzeEwidencji')} IS NOT NULL`;
    const regonState = `CASE WHEN ${blank('u.dataSkresleniaZRegon')} IS NOT NULL THEN 'WYKRESLONY'
      WHEN ${blank('u.dataZawieszeniaDzialalnosci')} IS NOT NULL
        AND ${blank('u.dataZawieszeniaDzialalnosci')} > coalesce(${blank('u.dataWznowieniaDzialalnosci')}, '') THEN 'ZAWIESZONY'
      ELSE 'AKTYWNY' END`;
    const krsState = `CASE WHEN ${blank('u.dataSkresleniaZRegon')} IS NOT NULL THEN 'WYKRESLONY' ELSE coalesce(k.proceeding, 'AKTYWNY') END`;
    const ceidgKnown = `trim(c.status) IN (${Object.keys(PL_CEIDG_STATES).map(str).join(', ')})`;
    const state = (field: keyof PlState) => `CASE
      WHEN u.sole AND ${ceidgKnown} THEN ${caseOf('trim(c.status)', pick(PL_CEIDG_STATES, field))}
      WHEN ${inKrs} THEN ${caseOf(krsState, pick(PL_KRS_STATES, field))}
      ELSE ${caseOf(regonState, pick(PL_REGON_STATES, field))} END`;
    // A village address has no street: `8, 82-200 Grobelno`.
    const regonAddress = `coalesce(${blank('u.adSiedzUlica_Nazwa')} || ' ', '') || trim(u.adSiedzNumerNieruchomosci)
      || coalesce('/' || ${blank('u.adSiedzNumerLokalu')}, '') || ', ' || ${postcode('u.adSiedzKodPocztowy')} || ' ' || trim(u.adSiedzMiejscowosc_Nazwa)`;
    const ceidgAddress = `coalesce(${blank('c.adres.ulica')} || ' ', '') || trim(c.adres.budynek) || coalesce('/' || ${blank('c.adres.lokal')}, '')
      || ', ' || coalesce(${blank('c.adres.kodPocztowy')}, ${blank('c.adres.kod')}) || ' ' || trim(c.adres.miasto)`;
    const asukoht = `CASE WHEN u.sole AND c.code IS NOT NULL THEN ${ceidgAddress} ELSE ${regonAddress} END`;
    const woj = `lower(CASE WHEN u.sole AND c.code IS NOT NULL THEN ${blank('c.adres.wojewodztwo')} ELSE ${blank('u.adSiedzWojewodztwo_Nazwa')} END)`;
    const phones = `list_filter(list_transform(string_split(coalesce(CASE WHEN u.sole THEN c.telefon ELSE u.numerTelefonu END, ''), ','),
      x -> trim(x)), x -> x <> '')`;
    const src = `CASE WHEN u.sole THEN 'pl_ceidg' ELSE 'pl_regon' END`;
    const email = `CASE WHEN u.sole THEN ${blank('c.email')} WHEN ${inKrs} THEN k.email ELSE ${blank('u.adresEmail')} END`;
    const www = `CASE WHEN u.sole THEN ${blank('c.www')} WHEN ${inKrs} THEN k.www ELSE ${blank('u.adresStronyinternetowej')} END`;
    const webSrc = `CASE WHEN u.sole THEN 'pl_ceidg' WHEN ${inKrs} THEN 'pl_krs' ELSE 'pl_regon' END`;
    const people = `coalesce(k.people, [])`;
    // CEIDG rows belong to sole traders only. The join says so with a second equality, not with
    // \`AND u.sole\`: a condition on the left side alone turns DuckDB's hash join into a blockwise
    // nested loop (4.8 million units x 2.5 million records: hours at scale 1; 1M x 500k took 386 s).
    await conn.run(
      contractCompaniesSql(
        {
          registrikood: 'u.code',
          arinimi: `coalesce(CASE WHEN u.sole THEN ${blank('c.nazwa')} ELSE k.name END, ${blank('u.nazwa')})`,
          oiguslik_vorm: blank('u.szczegolnaFormaPrawna_Symbol'),
          oiguslik_vorm_tekstina: blank('u.szczegolnaFormaPrawna_Nazwa'),
          staatus: state('staatus'),
          staatus_tekstina: state('text'),
          source_status: `CASE WHEN u.sole AND ${ceidgKnown} THEN trim(c.status) WHEN ${inKrs} THEN ${krsState} ELSE ${regonState} END`,
          esmaregistreerimise_kpv: `coalesce(CASE WHEN u.sole THEN TRY_CAST(${blank('c.dataRozpoczecia')} AS DATE)
            WHEN ${inKrs} THEN k.registered END, TRY_CAST(${blank('u.dataPowstania')} AS DATE))`,
          ehak_kood: 'loc.kood',
          ehak_nimetus: 'loc.name',
          asukoht,
          aadress_text: `${asukoht} || coalesce(', woj. ' || ${woj}, '')`,
          kapital: `CASE WHEN k.capital IS NOT NULL THEN printf('%.2f', k.capital) || coalesce(' ' || k.currency, '') END`,
          kapital_amount: 'k.capital',
          kapital_currency: 'CASE WHEN k.capital IS NOT NULL THEN k.currency END',
          contacts: `list_filter([
            CASE WHEN ${email} IS NOT NULL THEN {liik: 'EMAIL', sisu: ${email}, "source": ${webSrc}} END,
            CASE WHEN ${www} IS NOT NULL THEN {liik: 'WWW', sisu: ${www}, "source": ${webSrc}} END,
            CASE WHEN len(list_filter(${phones}, x -> NOT regexp_full_match(x, '${PL_MOBILE_PATTERN}'))) > 0
              THEN {liik: 'TEL', sisu: list_filter(${phones}, x -> NOT regexp_full_match(x, '${PL_MOBILE_PATTERN}'))[1], "source": ${src}} END,
            CASE WHEN len(list_filter(${phones}, x -> regexp_full_match(x, '${PL_MOBILE_PATTERN}'))) > 0
              THEN {liik: 'MOB', sisu: list_filter(${phones}, x -> regexp_full_match(x, '${PL_MOBILE_PATTERN}'))[1], "source": ${src}} END
          ], x -> x IS NOT NULL)`,
          emtak: emtakSql,
          people,
          annual_report_filed: `CASE WHEN ${inKrs} THEN k.filed END`,
          annual_report_audited: `CASE WHEN ${inKrs} THEN CASE WHEN k.filed THEN k.audited WHEN NOT k.filed THEN false END END`,
          pl_regon: blank('u.regon9'),
          pl_nip: blank('u.nip'),
          is_sole_trader: 'u.sole',
          not_for_sale: 'u.sole',
          search_name: searchNameSql(
            `coalesce(CASE WHEN u.sole THEN ${blank('c.nazwa')} ELSE k.name END, ${blank('u.nazwa')})`,
          ),
          search_people: searchPeopleSql(people),
        },
        `ingest_register u
         LEFT JOIN pl_krs k ON k.code = u.code
         LEFT JOIN (SELECT *, true AS for_sole FROM pl_ceidg) c ON c.code = u.code AND c.for_sole = u.sole
         LEFT JOIN pl_emtak e ON e.code = u.code
         LEFT JOIN location_leaves loc ON loc.kood = ${teryt}`,
      ),
    );
  });
  return {
    source: 'official-files',
    sourceDetail: { register: 'KRS, REGON (GUS), CEIDG', reader: 'ingest/official/pl' },
  };
}

export const PL_ADAPTER: CountryAdapter = { country: 'PL', files: PL_FILES, stage: stagePoland };

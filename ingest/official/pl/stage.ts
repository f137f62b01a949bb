import { sortedList } from '../../../src/engine/batch-sql.ts';
import type { StageResult } from '../../pipeline/publish.ts';
import { createActivityLeaves, createLocationLeaves } from '../activity-codes.ts';
import { loadJsonStage } from '../read-json.ts';
import { countNulled, keyRows, rejectOrphans } from '../rows.ts';
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
import { CEIDG_COLUMNS, KRS_ODPIS_TYPE, PKD_KEYS, PL_FILES, regonFields } from './files.ts';

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

async function stagePoland(ctx: StageContext): Promise<StageResult> {
  const { conn, reference, country, report } = ctx;
  await createActivityLeaves(conn, reference);
  await createLocationLeaves(conn, reference);

  const json = (key: string, table: string, columns: readonly (readonly [string, string])[]) =>
    loadJsonStage(ctx, key, table, columns);

  // REGON: every unit. KRS entities are keyed by their KRS number, the others by REGON.
  const regonColumns = (p: 'praw' | 'fiz') => {
    const k = PKD_KEYS[p];
    return [
      ...regonFields(p).map((f) => [f, 'VARCHAR'] as const),
      ['pkd', `STRUCT("${k.kod}" VARCHAR, "${k.main}" VARCHAR, "${k.version}" VARCHAR)[]`] as const,
    ];
  };
  const praw = await json('regonPraw', 'raw_praw', regonColumns('praw'));
  const fiz = await json('regonFiz', 'raw_fiz', regonColumns('fiz'));
  const generic = (p: 'praw' | 'fiz') => {
    const k = PKD_KEYS[p];
    const fields = regonFields('praw').map((f) => f.replace(/^praw_/, ''));
    return `SELECT ${fields
      .map((f) => (p === 'fiz' && f === 'numerWRejestrzeEwidencji' ? `NULL AS ${f}` : `"${p}_${f}" AS ${f}`))
      .join(', ')}, ${p === 'fiz'} AS sole, ${str(p === 'praw' ? praw : fiz)} AS regon_file,
      list_transform(pkd, r -> {kod: r."${k.kod}", main: r."${k.main}", version: r."${k.version}"}) AS pkd
    FROM raw_${p}`;
  };
  await conn.run(`CREATE OR REPLACE TEMP TABLE raw_units AS ${generic('praw')} UNION ALL ${generic('fiz')}`);
  await conn.run('DROP TABLE raw_praw');
  await conn.run('DROP TABLE raw_fiz');
  await keyRows(conn, {
    country,
    from: 'raw_units',
    to: 'ingest_register',
    codeSql: `CASE WHEN ${blank('numerWRejestrzeEwidencji')} IS NOT NULL THEN lpad(trim(numerWRejestrzeEwidencji), 10, '0') ELSE trim(regon9) END`,
    file: praw,
    report,
    checkRule: true,
  });
  // One aggregate for the served list (main first, then file order) and the counts: an ordered list()
  // and a second grouping of the same rows ran 4.8 million units out of a 3 GB limit.
  const served = `r.version = ${str(PL_PKD_VERSION)} AND l.kood IS NOT NULL`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE pl_emtak AS
    WITH rows AS (
      SELECT code, k, r.kod AS raw, ${pkdCode('r.kod')} AS kood, r.main = '1' AS is_main,
        coalesce(${blank('r.version')}, ${str(PL_PKD_VERSION)}) AS version
      FROM (SELECT code, unnest(pkd) AS r, generate_subscripts(pkd, 1) AS k FROM ingest_register)
    )
    SELECT code,
      ${sortedList('{kood: r.kood, label: l.label, is_main: r.is_main}', ['NOT r.is_main', 'r.k'], served)} AS emtak,
      count(*) FILTER (WHERE r.version <> ${str(PL_PKD_VERSION)}) AS other_version,
      count(*) FILTER (WHERE r.version = ${str(PL_PKD_VERSION)} AND l.kood IS NULL) AS unknown,
      any_value(raw) FILTER (WHERE r.version = ${str(PL_PKD_VERSION)} AND l.kood IS NULL) AS example
    FROM rows r LEFT JOIN activity_leaves l USING (kood) GROUP BY code`);
  await countNulled(conn, {
    country,
    file: praw,
    report,
    reason: `PKD rows of another version than ${PL_PKD_VERSION} (skipped: no correspondence to the served PKD 2007 tree)`,
    sql: `SELECT sum(other_version) AS n, NULL AS example FROM pl_emtak`,
  });
  await countNulled(conn, {
    country,
    file: praw,
    report,
    reason: 'PKD code not in the PKD tree (left out of emtak)',
    sql: `SELECT sum(unknown) AS n, any_value(example) FILTER (WHERE unknown > 0) AS example FROM pl_emtak`,
  });
  const teryt = `trim(u.adSiedzWojewodztwo_Symbol) || trim(u.adSiedzPowiat_Symbol) || trim(u.adSiedzGmina_Symbol)`;
  await countNulled(conn, {
    country,
    file: praw,
    report,
    reason: 'TERYT gmina code not in the location tree (ehak_kood left empty)',
    sql: `SELECT count(*) AS n, any_value(${teryt}) AS example FROM ingest_register u
          WHERE ${teryt} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM location_leaves l WHERE l.kood = ${teryt})`,
  });

  // KRS extracts: names, registration, capital, board, filed statements, proceedings.
  const krs = await json('krs', 'raw_krs', [['odpis', KRS_ODPIS_TYPE]]);
  await conn.run(`CREATE OR REPLACE TEMP TABLE pl_krs AS
    SELECT * FROM (SELECT lpad(trim(odpis.naglowekA.numerKRS), 10, '0') AS code, odpis FROM raw_krs)
    QUALIFY row_number() OVER (PARTITION BY code ORDER BY code) = 1`);
  await conn.run('DROP TABLE raw_krs');
  await rejectOrphans(conn, {
    country,
    table: 'pl_krs',
    codeSql: 't.code',
    file: krs,
    report,
    what: 'extracts',
  });
  await countNulled(conn, {
    country,
    file: krs,
    report,
    reason: 'KRS entity in REGON without an extract (KRS fields left empty)',
    sql: `SELECT count(*) AS n, any_value(code) AS example FROM ingest_register u
          WHERE ${blank('u.numerWRejestrzeEwidencji')} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pl_krs k WHERE k.code = u.code)`,
  });
  const d = 'k.odpis.dane';
  const closed = `year(${krsDate('k.odpis.naglowekA.stanZDnia')}) - 1`;
  const forYear = (list: string) =>
    `len(list_filter(${list}, f -> ends_with(trim(f.zaOkresOdDo), '.' || CAST(${closed} AS VARCHAR)))) > 0`;
  const stem = (s: string) => `len(list_filter(json_keys(${d}.dzial6), x -> lower(x) LIKE '%${s}%')) > 0`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE pl_krs_rows AS
    SELECT k.code,
      ${blank(`${d}.dzial1.danePodmiotu.nazwa`)} AS name,
      ${krsDate('k.odpis.naglowekA.dataRejestracjiWKRS')} AS registered,
      ${blank(`${d}.dzial1.siedzibaIAdres.adresPocztyElektronicznej`)} AS email,
      ${blank(`${d}.dzial1.siedzibaIAdres.adresStronyInternetowej`)} AS www,
      TRY_CAST(replace(regexp_replace(${d}.dzial1.kapital.wysokoscKapitaluZakladowego.wartosc, '[\\s\\x{00A0}]', '', 'g'), ',', '.') AS DOUBLE) AS capital,
      ${blank(`${d}.dzial1.kapital.wysokoscKapitaluZakladowego.waluta`)} AS currency,
      list_concat(
        list_transform(list_filter(coalesce(${d}.dzial2.reprezentacja.sklad, []), p -> NOT coalesce(p.czyZawieszona, false)),
          p -> {nimi: trim(p.imiona.imie || ' ' || p.nazwisko.nazwiskoICzlon), isiku_tyyp: 'F', roll: p.funkcjaWOrganie,
                roll_tekstina: coalesce(${caseOf('p.funkcjaWOrganie', PL_ROLE_TEXT)}, p.funkcjaWOrganie), algus_kpv: NULL::DATE}),
        list_transform(coalesce(${d}.dzial2.prokurenci, []),
          p -> {nimi: trim(p.imiona.imie || ' ' || p.nazwisko.nazwiskoICzlon), isiku_tyyp: 'F', roll: 'PROKURENT',
                roll_tekstina: ${str(PL_ROLE_TEXT['PROKURENT'] ?? 'Prokurent')}, algus_kpv: NULL::DATE})
      ) AS people,
      ${forYear(`coalesce(${d}.dzial3.wzmiankiOZlozonychDokumentach.wzmiankaOZlozeniuRocznegoSprawozdaniaFinansowego, [])`)} AS filed,
      CASE WHEN ${d}.dzial3.wzmiankiOZlozonychDokumentach.wzmiankaOZlozeniuOpiniiBieglegoRewidentaSprawozdaniaZBadania IS NULL THEN NULL
        ELSE ${forYear(`${d}.dzial3.wzmiankiOZlozonychDokumentach.wzmiankaOZlozeniuOpiniiBieglegoRewidentaSprawozdaniaZBadania`)} END AS audited,
      CASE ${PL_DZIAL6_STEMS.map(([s, state]) => `WHEN ${stem(s)} THEN ${str(state)}`).join(' ')} END AS proceeding
    FROM pl_krs k`);
  await conn.run('DROP TABLE pl_krs');

  // CEIDG: the sole traders' names, start dates, addresses, contacts and status.
  const ceidg = await json('ceidg', 'raw_ceidg', CEIDG_COLUMNS);
  await conn.run(`CREATE OR REPLACE TEMP TABLE pl_ceidg AS
    SELECT * FROM (SELECT trim(wlasciciel.regon) AS code, *, coalesce(adresDzialalnosci, adresDzialanosci) AS adres FROM raw_ceidg)
    QUALIFY row_number() OVER (PARTITION BY code ORDER BY code) = 1`);
  await conn.run('DROP TABLE raw_ceidg');
  await rejectOrphans(conn, {
    country,
    table: 'pl_ceidg',
    codeSql: 't.code',
    file: ceidg,
    report,
    what: 'records',
  });
  await countNulled(conn, {
    country,
    file: ceidg,
    report,
    reason: 'CEIDG status not a known value (REGON dates used)',
    sql: `SELECT count(*) AS n, any_value(status) AS example FROM pl_ceidg
          WHERE trim(status) NOT IN (${Object.keys(PL_CEIDG_STATES).map(str).join(', ')})`,
  });

  await createEmptyHistory((sql) => conn.run(sql));
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
    const regonAddress = `${blank('u.adSiedzUlica_Nazwa')} || ' ' || trim(u.adSiedzNumerNieruchomosci)
      || coalesce('/' || ${blank('u.adSiedzNumerLokalu')}, '') || ', ' || ${postcode('u.adSiedzKodPocztowy')} || ' ' || trim(u.adSiedzMiejscowosc_Nazwa)`;
    const ceidgAddress = `${blank('c.adres.ulica')} || ' ' || trim(c.adres.budynek) || coalesce('/' || ${blank('c.adres.lokal')}, '')
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
          emtak: 'coalesce(e.emtak, [])',
          people,
          annual_report_filed: `CASE WHEN ${inKrs} THEN k.filed END`,
          annual_report_audited: `CASE WHEN ${inKrs} THEN CASE WHEN k.filed THEN k.audited ELSE false END END`,
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
         LEFT JOIN pl_krs_rows k ON k.code = u.code
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

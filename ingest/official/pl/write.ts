import fs from 'node:fs';
import path from 'node:path';
import { sqlPath } from '../../pipeline/sql.ts';
import { isoDate, type WriterContext } from '../writer-context.ts';
import { CAPTURE_PART_LINES } from '../../harvest/capture.ts';
import { PL_CAPTURE_PREFIX } from './files.ts';
import { readNaceRev2 } from '../../reference/classifiers/nace.ts';
import { readPkd2007 } from '../../reference/classifiers/pkd.ts';

/*
 * Poland's sources from a canonical snapshot, in the form `regdata harvest PL` stores them: JSON-lines
 * capture files, one answer per line with the body as the service sends it (KRS OdpisAktualny JSON, REGON
 * BIR MTOM/SOAP answers with the report as escaped XML, CEIDG v3 pages and details). The bodies carry the
 * reference's quirks: KRS extracts as nested
 * JSON with dd.mm.yyyy dates, share capital with a decimal comma (and spaces between thousands for large
 * amounts), board members split into `nazwisko` / `imiona`, prokurenci apart, dzial6 entries only where a
 * proceeding runs, an older year's financial-statement mention beside the latest one and no auditor
 * section at all in some extracts; REGON records with postcodes without their dash, voivodeship names in
 * capitals, PKD codes undotted (`7022Z`) or dotted, PKD 2025 codes with, for some units, the main activity also in PKD 2007 (the REGON transition), a suspension
 * followed by a resumption, several phone numbers in one field; CEIDG records with the old `adresDzialanosci`
 * spelling and `kod` instead of `kodPocztowy` in some, and `pkd` as strings or objects.
 */

const h = (salt: string, n: number, key = 'registrikood'): string => `(hash(${key}, '${salt}') % ${n})`;
const pl = (d: string): string => `strftime(${d}, '%d.%m.%Y')`;

export async function writePlOfficial(ctx: WriterContext): Promise<string[]> {
  const w = plWrite(ctx);
  for (const step of [createPlTable, writeKrs, writeRegon, writeCeidg]) await step(w);
  await ctx.conn.run('DROP TABLE w_pl');
  return w.written.filter((f) => fs.existsSync(f));
}

/** What the steps of one Polish write share: the dates, the files written so far, and the part writer. */
interface PlWrite {
  ctx: WriterContext;
  today: string;
  closedYear: number;
  fetchedAt: string;
  written: string[];
  parts: (
    prefix: string,
    units: number,
    perPart: number,
    select: (lo: number, hi: number) => string,
  ) => Promise<void>;
  count: (sql: string) => Promise<number>;
}

function plWrite(ctx: WriterContext): PlWrite {
  const { conn, outDir, asOf } = ctx;
  const today = isoDate(asOf);
  const written: string[] = [];
  const run = `${today.replaceAll('-', '')}T050305Z`;
  /*
   * Each family is written as the harvest writes it: a new part file every CAPTURE_PART_LINES answers
   * (ingest/harvest/capture.ts). Each part is one COPY over a slice of the input, so the memory a part
   * needs does not grow with the country.
   */
  const parts = async (
    prefix: string,
    units: number,
    perPart: number,
    select: (lo: number, hi: number) => string,
  ) => {
    for (let part = 1, lo = 1; lo <= Math.max(units, 1); part++, lo += perPart) {
      const file = path.join(outDir, `${prefix}_${run}_${String(part).padStart(4, '0')}.jsonl`);
      written.push(file);
      await writeCaptures(conn, select(lo, lo + perPart - 1), file);
    }
  };
  const count = async (sql: string): Promise<number> =>
    Number((await conn.runAndReadAll(`SELECT CAST(count(*) AS INTEGER) FROM ${sql}`)).getRows()[0]?.[0] ?? 0);
  return {
    ctx,
    today,
    closedYear: asOf.getUTCFullYear() - 1,
    fetchedAt: `${today}T05:03:05.000Z`,
    written,
    parts,
    count,
  };
}

/** `w_pl`: the companies with their order numbers, parsed address, contacts and PKD 2007 main activity. */
async function createPlTable({ ctx }: PlWrite): Promise<void> {
  const { conn } = ctx;
  const contact = (liik: string, sources: string) =>
    `list_filter(contacts, c -> c.liik = '${liik}' AND c."source" IN (${sources}))[1].sisu`;
  // Row numbers in the two orders the answers are written in (REGON, and KRS numbers for the extracts),
  // from the keys alone; each part then sorts only its own slice of the (wide) input rows.
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_pl_order AS
    SELECT registrikood, row_number() OVER (ORDER BY pl_regon) AS n,
      CASE WHEN length(registrikood) = 10 THEN row_number() OVER (PARTITION BY length(registrikood) = 10 ORDER BY registrikood) END AS krs_n
    FROM w_companies`);
  await createPkd2007Main(ctx);
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_pl AS
    SELECT w.*, o.n, o.krs_n, p07.old AS pkd2007_main, p07.label AS pkd2007_label,
      length(registrikood) = 10 AS krs,
      regexp_extract(asukoht, '^(.*) (\\S+), (\\d{2})-(\\d{3}) (.*)$', ['street', 'nr', 'pc1', 'pc2', 'town']) AS a,
      regexp_extract(aadress_text, 'woj\\. (.*)$', 1) AS woj,
      ${contact('EMAIL', "'pl_krs'")} AS krs_email, ${contact('WWW', "'pl_krs'")} AS krs_www,
      ${contact('EMAIL', "'pl_regon', 'pl_ceidg'")} AS email, ${contact('WWW', "'pl_regon', 'pl_ceidg'")} AS www,
      nullif(array_to_string(list_transform(list_filter(contacts, c -> c.liik IN ('TEL', 'MOB')
        AND c."source" IN ('pl_regon', 'pl_ceidg')), c -> c.sisu), ', '), '') AS phones
    FROM w_companies w JOIN w_pl_order o USING (registrikood)
      LEFT JOIN w_pkd2007_main p07 ON p07.kood = w.emtak[1].kood`);
  await conn.run('DROP TABLE w_pl_order');
}

/** KRS: one OdpisAktualny per entity. */
async function writeKrs(w: PlWrite): Promise<void> {
  const { today, closedYear, fetchedAt } = w;
  const person = (p: string) =>
    `nazwisko: {nazwiskoICzlon: substr(${p}.nimi, strpos(${p}.nimi, ' ') + 1)}, imiona: {imie: split_part(${p}.nimi, ' ', 1)}`;
  const filing = (y: string) =>
    `{dataZlozenia: ${pl(`make_date(${y} + 1, 6, 20)`)}, zaOkresOdDo: 'OD 01.01.' || ${y} || ' DO 31.12.' || ${y}}`;
  const capital = `CASE WHEN kapital_amount >= 1000000 THEN replace(replace(format('{:,.2f}', kapital_amount), ',', ' '), '.', ',')
    ELSE replace(printf('%.2f', kapital_amount), '.', ',') END`;
  await w.parts(
    PL_CAPTURE_PREFIX.krs,
    await w.count('w_pl WHERE krs'),
    CAPTURE_PART_LINES,
    (lo, hi) =>
      `SELECT registrikood || '/' || CASE WHEN oiguslik_vorm IN ('148', '155') THEN 'S' ELSE 'P' END AS key,
       'OdpisAktualny' AS kind,
       '${KRS_URL}/api/krs/OdpisAktualny/' || registrikood || '?rejestr=' || CASE WHEN oiguslik_vorm IN ('148', '155') THEN 'S' ELSE 'P' END
         || '&format=json' AS url,
       200 AS status, 'application/json; charset=utf-8' AS content_type, '${fetchedAt}' AS fetched_at,
       CAST(to_json({odpis: {
       rodzaj: 'Aktualny',
       naglowekA: {rejestr: CASE WHEN oiguslik_vorm IN ('148', '155') THEN 'RejS' ELSE 'RejP' END, numerKRS: registrikood,
         dataCzasOdpisu: ${pl(`DATE '${today}'`)} || ' 05:03:05', stanZDnia: ${pl(`DATE '${today}'`)},
         dataRejestracjiWKRS: ${pl('esmaregistreerimise_kpv')}, numerOstatniegoWpisu: 1 + ${h('wpis', 40)}, stanPozycji: 1},
       dane: {
         dzial1: {
           danePodmiotu: {formaPrawna: upper(oiguslik_vorm_tekstina), identyfikatory: {regon: pl_regon || '00000', nip: pl_nip},
             nazwa: arinimi, czyPosiadaStatusOPP: false},
           siedzibaIAdres: {
             siedziba: {kraj: 'POLSKA', wojewodztwo: upper(woj), miejscowosc: upper(a.town)},
             adres: {ulica: a.street, nrDomu: a.nr, miejscowosc: upper(a.town), kodPocztowy: a.pc1 || '-' || a.pc2,
               poczta: upper(a.town), kraj: 'POLSKA'},
             adresPocztyElektronicznej: krs_email, adresStronyInternetowej: krs_www},
           kapital: CASE WHEN kapital_amount IS NOT NULL THEN {wysokoscKapitaluZakladowego: {wartosc: ${capital}, waluta: kapital_currency}} END
         },
         dzial2: {
           reprezentacja: {nazwaOrganu: CASE WHEN oiguslik_vorm IN ('118', '120', '115') THEN 'WSPÓLNICY' ELSE 'ZARZĄD' END,
             sklad: list_transform(list_filter(people, p -> p.roll <> 'PROKURENT'),
               p -> {${person('p')}, funkcjaWOrganie: p.roll, czyZawieszona: false})},
           prokurenci: list_transform(list_filter(people, p -> p.roll = 'PROKURENT'), p -> {${person('p')}})
         },
         dzial3: {
           przedmiotDzialalnosci: {
             przedmiotPrzewazajacejDzialalnosci: list_transform(list_filter(emtak, e -> e.is_main),
               e -> {opis: e.label, kodDzial: split_part(e.kood, '.', 1), kodKlasa: split_part(e.kood, '.', 2), kodPodklasa: split_part(e.kood, '.', 3)}),
             przedmiotPozostalejDzialalnosci: list_transform(list_filter(emtak, e -> NOT e.is_main),
               e -> {opis: e.label, kodDzial: split_part(e.kood, '.', 1), kodKlasa: split_part(e.kood, '.', 2), kodPodklasa: split_part(e.kood, '.', 3)})
           },
           wzmiankiOZlozonychDokumentach: {
             wzmiankaOZlozeniuRocznegoSprawozdaniaFinansowego: list_filter([
               CASE WHEN esmaregistreerimise_kpv < DATE '${closedYear - 1}-01-01' THEN ${filing(String(closedYear - 1))} END,
               CASE WHEN annual_report_filed THEN ${filing(String(closedYear))} END], x -> x IS NOT NULL),
             wzmiankaOZlozeniuOpiniiBieglegoRewidentaSprawozdaniaZBadania: CASE WHEN annual_report_audited IS NOT NULL
               THEN list_filter([CASE WHEN annual_report_audited THEN ${filing(String(closedYear))} END], x -> x IS NOT NULL) END
           }
         },
         dzial6: CASE staatus
           WHEN 'L' THEN json_object('likwidacja', json_object('likwidatorzy', json_array(), 'dataOtwarcia', ${pl(`DATE '${today}' - 120`)}))
           WHEN 'N' THEN json_object('postepowanieUpadlosciowe', json_object('dataOrzeczenia', ${pl(`DATE '${today}' - 200`)}))
           WHEN 'T' THEN json_object('postepowanieRestrukturyzacyjne', json_object('dataOtwarcia', ${pl(`DATE '${today}' - 60`)}))
           ELSE json_object() END
       }
     }}) AS VARCHAR) AS body
     FROM (SELECT * FROM w_pl WHERE krs_n BETWEEN ${lo} AND ${hi} ORDER BY registrikood)`,
  );
}

// REGON BIR: per unit the full reports the harvest asks for, each an MTOM answer as BIR sends it.
const undotted = `replace(e.kood, '.', '')`;
const suspended = `staatus = 'S'`;
const resumed = `staatus = 'R' AND ${h('resumed', 20)} = 0`;
const iso = (e: string) => `strftime(${e}, '%Y-%m-%d')`;

/** The dates, seat address and contacts both kinds of unit report. */
const birCommon = (today: string, p: 'praw' | 'fiz'): [string, string][] => [
  [`${p}_dataPowstania`, iso('esmaregistreerimise_kpv')],
  [`${p}_dataRozpoczeciaDzialalnosci`, iso('esmaregistreerimise_kpv')],
  [
    `${p}_dataZawieszeniaDzialalnosci`,
    `CASE WHEN ${suspended} THEN ${iso(`DATE '${today}' - 90 - ${h('susp', 300)}::INTEGER`)} WHEN ${resumed} THEN '2020-03-01' END`,
  ],
  [`${p}_dataWznowieniaDzialalnosci`, `CASE WHEN ${resumed} THEN '2020-09-01' END`],
  [
    p === 'praw' ? 'praw_dataSkresleniaZRegon' : 'fiz_dataSkresleniazRegonDzialalnosci',
    `CASE WHEN staatus = 'K' THEN ${iso(`least(esmaregistreerimise_kpv + 400 + ${h('skr', 4000)}::INTEGER, DATE '${today}')`)} END`,
  ],
  [`${p}_adSiedzKraj_Symbol`, `'PL'`],
  [`${p}_adSiedzWojewodztwo_Symbol`, 'substr(ehak_kood, 1, 2)'],
  [`${p}_adSiedzPowiat_Symbol`, 'substr(ehak_kood, 3, 2)'],
  [`${p}_adSiedzGmina_Symbol`, 'substr(ehak_kood, 5, 3)'],
  [`${p}_adSiedzKodPocztowy`, 'a.pc1 || a.pc2'],
  [`${p}_adSiedzMiejscowosc_Symbol`, `lpad(CAST(${h('simc', 1000000)} AS VARCHAR), 7, '0')`],
  [`${p}_adSiedzUlica_Symbol`, `lpad(CAST(${h('ulic', 100000)} AS VARCHAR), 5, '0')`],
  [`${p}_adSiedzNumerNieruchomosci`, 'a.nr'],
  [`${p}_adSiedzNumerLokalu`, 'NULL'],
  [`${p}_numerTelefonu`, 'phones'],
  [`${p}_numerFaksu`, 'NULL'],
  [`${p}_adresEmail`, 'email'],
  [`${p}_adresStronyinternetowej`, 'www'],
  [`${p}_adSiedzKraj_Nazwa`, `'POLSKA'`],
  [`${p}_adSiedzWojewodztwo_Nazwa`, 'upper(woj)'],
  [`${p}_adSiedzMiejscowosc_Nazwa`, 'a.town'],
  [`${p}_adSiedzUlica_Nazwa`, 'a.street'],
];

/** The reports (name, SQL of its records) BIR answers for a legal person or a sole trader. */
function regonReports(today: string, p: 'praw' | 'fiz'): [string, string][] {
  const prawFields: [string, string][] = [
    ['praw_regon9', 'pl_regon'],
    ['praw_nip', 'pl_nip'],
    ['praw_statusNip', 'NULL'],
    ['praw_nazwa', 'arinimi'],
    ['praw_nazwaSkrocona', 'NULL'],
    ['praw_numerWRejestrzeEwidencji', 'CASE WHEN krs THEN registrikood END'],
    ...birCommon(today, 'praw'),
    ['praw_podstawowaFormaPrawna_Symbol', `CASE WHEN krs THEN '1' ELSE '2' END`],
    ['praw_szczegolnaFormaPrawna_Symbol', 'oiguslik_vorm'],
    ['praw_szczegolnaFormaPrawna_Nazwa', 'oiguslik_vorm_tekstina'],
    ['praw_liczbaJednLokalnych', `'0'`],
  ];
  const fizOgolne: [string, string][] = [
    ['fiz_regon9', 'pl_regon'],
    ['fiz_nip', 'pl_nip'],
    ['fiz_statusNip', 'NULL'],
    ['fiz_nazwisko', `split_part(arinimi, ' ', 2)`],
    ['fiz_imie1', `split_part(arinimi, ' ', 1)`],
    ['fiz_nazwa', 'arinimi'],
    ['fiz_podstawowaFormaPrawna_Symbol', `'9'`],
    ['fiz_szczegolnaFormaPrawna_Symbol', 'oiguslik_vorm'],
    ['fiz_szczegolnaFormaPrawna_Nazwa', 'oiguslik_vorm_tekstina'],
  ];
  const fizCeidg: [string, string][] = [
    ['fiz_regon9', 'pl_regon'],
    ['fiz_nazwa', 'arinimi'],
    ...birCommon(today, 'fiz'),
  ];
  const pkdRows = (p: 'praw' | 'fiz') =>
    `list_concat(
       list_transform(emtak, e -> ${birRecord(
         p === 'praw'
           ? [
               ['praw_pkdKod', `CASE WHEN ${h('dots', 3)} = 0 THEN e.kood ELSE ${undotted} END`],
               ['praw_pkdNazwa', 'e.label'],
               ['praw_pkdPrzewazajace', `CASE WHEN e.is_main THEN '1' ELSE '0' END`],
               ['praw_pkdWersja', `'2025'`],
             ]
           : [
               ['fiz_pkd_Kod', `CASE WHEN ${h('dots', 3)} = 0 THEN e.kood ELSE ${undotted} END`],
               ['fiz_pkd_Nazwa', 'e.label'],
               ['fiz_pkd_Przewazajace', `CASE WHEN e.is_main THEN '1' ELSE '0' END`],
             ],
       )}),
       CASE WHEN ${p === 'praw'} AND ${h('pkd07', 8)} = 0 AND pkd2007_main IS NOT NULL THEN [${birRecord([
         ['praw_pkdKod', `replace(pkd2007_main, '.', '')`],
         ['praw_pkdNazwa', 'pkd2007_label'],
         ['praw_pkdPrzewazajace', `'1'`],
         ['praw_pkdWersja', `'2007'`],
       ])}] ELSE [] END)`;
  return p === 'praw'
    ? [
        ['BIR11OsPrawna', `[${birRecord(prawFields)}]`],
        ['BIR11OsPrawnaPkd', pkdRows('praw')],
      ]
    : [
        ['BIR11OsFizycznaDaneOgolne', `[${birRecord(fizOgolne)}]`],
        ['BIR11OsFizycznaDzialalnoscCeidg', `[${birRecord(fizCeidg)}]`],
        ['BIR11OsFizycznaPkd', pkdRows('fiz')],
      ];
}

const regonLines = (fetchedAt: string, today: string, p: 'praw' | 'fiz') =>
  `[${regonReports(today, p)
    .map(
      ([report, records], i) => `{key: pl_regon, kind: ${str(report)}, url: ${str(REGON_URL)},
         action: 'DanePobierzPelnyRaport', status: 200,
         content_type: 'multipart/related; type="application/xop+xml"; start="<http://tempuri.org/0>"; boundary="uuid:' || md5(pl_regon) || '+id=${i + 1}"; start-info="application/soap+xml"',
         fetched_at: '${fetchedAt}', body: ${mtomSql(`md5(pl_regon)`, String(i + 1), records)}}`,
    )
    .join(', ')}]`;

async function writeRegon(w: PlWrite): Promise<void> {
  // w_pl is in REGON order, so the answers stream out unit by unit with no sort of the (large) bodies.
  // A unit has up to three answers, so a part of a third as many units stays within the harvest's lines.
  const units = await w.count('w_pl');
  await w.parts(
    PL_CAPTURE_PREFIX.regon,
    units,
    Math.floor(CAPTURE_PART_LINES / 3),
    (lo, hi) =>
      `SELECT l.key, l.kind, l.url, l.action, l.status, l.content_type, l.fetched_at, l.body FROM (
       SELECT unnest(CASE WHEN is_sole_trader THEN ${regonLines(w.fetchedAt, w.today, 'fiz')} ELSE ${regonLines(w.fetchedAt, w.today, 'praw')} END) AS l
       FROM (SELECT * FROM w_pl WHERE n BETWEEN ${lo} AND ${hi} ORDER BY n))`,
  );
}

/** CEIDG: v3 pages of 25 sole traders (the list form), then each one's details. */
async function writeCeidg(w: PlWrite): Promise<void> {
  const {
    ctx: { conn },
    today,
    fetchedAt,
  } = w;
  const oldSpelling = `${h('sic', 3)} = 0`;
  const address = `{ulica: a.street, budynek: a.nr, lokal: NULL, miasto: a.town,
    kod: CASE WHEN ${oldSpelling} THEN a.pc1 || '-' || a.pc2 END,
    kodPocztowy: CASE WHEN NOT ${oldSpelling} THEN a.pc1 || '-' || a.pc2 END, wojewodztwo: woj, kraj: 'PL'}`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_ceidg AS
    SELECT md5(pl_regon) AS id, (row_number() OVER (ORDER BY pl_regon) - 1) // 25 AS page, pl_regon,
      arinimi AS nazwa,
      CASE WHEN NOT ${oldSpelling} THEN ${address} END AS adresDzialalnosci,
      CASE WHEN ${oldSpelling} THEN ${address} END AS adresDzialanosci,
      {imie: split_part(arinimi, ' ', 1), nazwisko: split_part(arinimi, ' ', 2), nip: pl_nip, regon: pl_regon} AS wlasciciel,
      emtak, ${h('pkdobj', 2)} = 0 AS pkd_strings,
      strftime(esmaregistreerimise_kpv, '%Y-%m-%d') AS dataRozpoczecia,
      CASE WHEN staatus = 'S' THEN strftime(DATE '${today}' - 100, '%Y-%m-%d') END AS dataZawieszenia,
      CASE WHEN staatus = 'K' THEN strftime(DATE '${today}' - 500, '%Y-%m-%d') END AS dataWykreslenia,
      source_status AS status, email, www, phones AS telefon
    FROM w_pl WHERE is_sole_trader ORDER BY pl_regon`);
  const traders = await w.count('w_ceidg');
  const lastPage = Math.max(Math.ceil(traders / 25) - 1, 0);
  const link = `'${CEIDG_URL}/firma/' || id`;
  const pageUrl = (n: string) => `'${CEIDG_URL}/firmy?page=' || ${n} || '&limit=25'`;
  // A page and its 25 details are 26 answers; each part sorts only its own pages' answers.
  await w.parts(
    PL_CAPTURE_PREFIX.ceidg,
    lastPage + 1,
    Math.floor(CAPTURE_PART_LINES / 26),
    (lo, hi) =>
      `SELECT key, kind, url, status, content_type, fetched_at, body FROM (
       SELECT CAST(page AS VARCHAR) AS key, 'firmy' AS kind, ${pageUrl('page')} AS url, 200 AS status,
         'application/json; charset=utf-8' AS content_type, '${fetchedAt}' AS fetched_at,
         CAST(to_json({
           firmy: list({id: id, nazwa: nazwa, adresDzialalnosci: adresDzialalnosci, adresDzialanosci: adresDzialanosci,
             wlasciciel: wlasciciel, dataRozpoczecia: dataRozpoczecia, status: status, link: ${link}} ORDER BY pl_regon),
           count: ${traders}::BIGINT,
           links: {next: CASE WHEN page < ${lastPage} THEN ${pageUrl('page + 1')} END, self: ${pageUrl('page')}}
         }) AS VARCHAR) AS body, page AS o, '' AS r
       FROM w_ceidg WHERE page BETWEEN ${lo - 1} AND ${hi - 1} GROUP BY page
       UNION ALL
       SELECT id, 'firma', ${link}, 200, 'application/json; charset=utf-8', '${fetchedAt}',
         CAST(to_json({firma: [{id: id, nazwa: nazwa, adresDzialalnosci: adresDzialalnosci, adresDzialanosci: adresDzialanosci,
           wlasciciel: wlasciciel,
           pkd: CASE WHEN pkd_strings THEN to_json(list_transform(emtak, e -> replace(e.kood, '.', '')))
             ELSE to_json(list_transform(emtak, e -> {kod: replace(e.kood, '.', ''), opis: e.label, przewazajacy: e.is_main})) END,
           dataRozpoczecia: dataRozpoczecia, dataZawieszenia: dataZawieszenia, dataWykreslenia: dataWykreslenia,
           status: status, email: email, www: www, telefon: telefon, link: ${link}}]}) AS VARCHAR), page, pl_regon
       FROM w_ceidg WHERE page BETWEEN ${lo - 1} AND ${hi - 1}) ORDER BY o, r`,
  );
  await conn.run('DROP TABLE w_ceidg');
}

const KRS_URL = 'https://api-krs.ms.gov.pl';
const REGON_URL = 'https://wyszukiwarkaregon.stat.gov.pl/wsBIR/UslugaBIRzewnPubl.svc';
const CEIDG_URL = 'https://dane.biznes.gov.pl/api/ceidg/v3';
const str = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/** Capture lines (newline-delimited JSON, the select's columns in order) as the harvest writes them. */
async function writeCaptures(conn: WriterContext['conn'], select: string, file: string): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await conn.run(`COPY (${select}) TO ${sqlPath(file)} (FORMAT json)`);
}

/**
 * SQL of one BIR `<dane>` record as it sits inside the SOAP result: the inner XML escaped once more, one
 * element per line with BIR's `&#xD;` line ends, `<x />` for an empty value.
 */
function birRecord(fields: readonly (readonly [string, string])[]): string {
  const esc = (v: string) =>
    `replace(replace(replace(${v}, '&', '&amp;amp;'), '<', '&amp;lt;'), '>', '&amp;gt;')`;
  // `||` is NULL for an empty value, so coalesce picks the empty element and the value is computed once.
  const parts = fields.map(
    ([name, expr]) =>
      `coalesce('&lt;${name}&gt;' || ${esc(`nullif(CAST(${expr} AS VARCHAR), '')`)} || '&lt;/${name}&gt;', '&lt;${name} /&gt;')`,
  );
  // One concat() of every piece: a chain of `||` copies the growing record once per piece (quadratic).
  return `concat('&lt;dane&gt;&#xD;\n    ', ${parts.join(`, '&#xD;\n    ', `)}, '&#xD;\n  &lt;/dane&gt;')`;
}

/** SQL of a whole DanePobierzPelnyRaport answer: the MTOM part around the envelope (CRLF between parts). */
function mtomSql(uuid: string, id: string, records: string): string {
  const crlf = `chr(13) || chr(10)`;
  const boundary = `'--uuid:' || ${uuid} || '+id=${id}'`;
  return `concat(${crlf}, ${boundary}, ${crlf}, 'Content-ID: <http://tempuri.org/0>', ${crlf},
    'Content-Transfer-Encoding: 8bit', ${crlf},
    'Content-Type: application/xop+xml;charset=utf-8;type="application/soap+xml"', ${crlf}, ${crlf},
    '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://www.w3.org/2005/08/addressing"><s:Header><a:Action s:mustUnderstand="1">http://CIS/BIR/PUBL/2014/07/IUslugaBIRzewnPubl/DanePobierzPelnyRaportResponse</a:Action></s:Header><s:Body><DanePobierzPelnyRaportResponse xmlns="http://CIS/BIR/PUBL/2014/07"><DanePobierzPelnyRaportResult>',
    '&lt;root&gt;&#xD;\n  ', array_to_string(${records}, '&#xD;\n  '), '&#xD;\n&lt;/root&gt;',
    '</DanePobierzPelnyRaportResult></DanePobierzPelnyRaportResponse></s:Body></s:Envelope>',
    ${crlf}, ${boundary}, '--', ${crlf})`;
}

/**
 * `w_pkd2007_main(kood, old, label)`: for a served PKD 2025 podklasa, the lowest PKD 2007 podklasa that the
 * forward map (ingest/reference/activity-forward.ts) takes onto it, with its GUS name: what REGON lists
 * beside the PKD 2025 row while a unit is in transition, and what the ingest maps back onto the same leaf.
 */
async function createPkd2007Main({ conn, reference }: WriterContext): Promise<void> {
  const names = new Map(readPkd2007(readNaceRev2()).map((i) => [i.code, i.native ?? '']));
  const lowest = new Map<string, string>();
  for (const [old, kood] of reference.activityForward) {
    const seen = lowest.get(kood);
    if (seen === undefined || old < seen) lowest.set(kood, old);
  }
  await conn.run('CREATE OR REPLACE TEMP TABLE w_pkd2007_main (kood VARCHAR, old VARCHAR, label VARCHAR)');
  const appender = await conn.createAppender('w_pkd2007_main');
  for (const [kood, old] of lowest) {
    appender.appendVarchar(kood);
    appender.appendVarchar(old);
    appender.appendVarchar(names.get(old) ?? '');
    appender.endRow();
  }
  appender.closeSync();
}

import path from 'node:path';
import { writeJsonArray } from '../write-helpers.ts';
import { isoDate, type WriterContext } from '../writer-context.ts';
import { PL_FILE_NAMES } from './files.ts';

/*
 * Poland's official files from a canonical snapshot, with the reference's quirks: KRS extracts as nested
 * JSON with dd.mm.yyyy dates, share capital with a decimal comma (and spaces between thousands for large
 * amounts), board members split into `nazwisko` / `imiona`, prokurenci apart, dzial6 entries only where a
 * proceeding runs, an older year's financial-statement mention beside the latest one and no auditor
 * section at all in some extracts; REGON records with postcodes without their dash, voivodeship names in
 * capitals, PKD codes undotted (`7022Z`) or dotted, PKD 2025 rows beside PKD 2007 ones, a suspension
 * followed by a resumption, several phone numbers in one field; CEIDG records with the old `adresDzialanosci`
 * spelling and `kod` instead of `kodPocztowy` in some, and `pkd` as strings or objects.
 */

const h = (salt: string, n: number, key = 'registrikood'): string => `(hash(${key}, '${salt}') % ${n})`;
const pl = (d: string): string => `strftime(${d}, '%d.%m.%Y')`;

export async function writePlOfficial(ctx: WriterContext): Promise<string[]> {
  const { conn, outDir, asOf } = ctx;
  const today = isoDate(asOf);
  const closedYear = asOf.getUTCFullYear() - 1;
  const written: string[] = [];
  const out = (name: string) => {
    const file = path.join(outDir, name);
    written.push(file);
    return file;
  };

  const contact = (liik: string, sources: string) =>
    `list_filter(contacts, c -> c.liik = '${liik}' AND c."source" IN (${sources}))[1].sisu`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_pl AS
    SELECT *,
      length(registrikood) = 10 AS krs,
      regexp_extract(asukoht, '^(.*) (\\S+), (\\d{2})-(\\d{3}) (.*)$', ['street', 'nr', 'pc1', 'pc2', 'town']) AS a,
      regexp_extract(aadress_text, 'woj\\. (.*)$', 1) AS woj,
      ${contact('EMAIL', "'pl_krs'")} AS krs_email, ${contact('WWW', "'pl_krs'")} AS krs_www,
      ${contact('EMAIL', "'pl_regon', 'pl_ceidg'")} AS email, ${contact('WWW', "'pl_regon', 'pl_ceidg'")} AS www,
      nullif(array_to_string(list_transform(list_filter(contacts, c -> c.liik IN ('TEL', 'MOB')
        AND c."source" IN ('pl_regon', 'pl_ceidg')), c -> c.sisu), ', '), '') AS phones
    FROM w_companies`);

  // KRS: one OdpisAktualny per entity.
  const person = (p: string) =>
    `nazwisko: {nazwiskoICzlon: substr(${p}.nimi, strpos(${p}.nimi, ' ') + 1)}, imiona: {imie: split_part(${p}.nimi, ' ', 1)}`;
  const filing = (y: string) =>
    `{dataZlozenia: ${pl(`make_date(${y} + 1, 6, 20)`)}, zaOkresOdDo: 'OD 01.01.' || ${y} || ' DO 31.12.' || ${y}}`;
  const capital = `CASE WHEN kapital_amount >= 1000000 THEN replace(replace(format('{:,.2f}', kapital_amount), ',', ' '), '.', ',')
    ELSE replace(printf('%.2f', kapital_amount), '.', ',') END`;
  await writeJsonArray(
    conn,
    `SELECT {
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
     } AS odpis
     FROM w_pl WHERE krs ORDER BY registrikood`,
    out(PL_FILE_NAMES.krs),
  );

  // REGON BIR1 reports, legal persons and sole traders, each with its PKD report rows.
  const regon = (p: 'praw' | 'fiz') => {
    const undotted = `replace(e.kood, '.', '')`;
    const pkdRow =
      p === 'praw'
        ? (version: string, kood: string) =>
            `{praw_pkdKod: ${kood}, praw_pkdNazwa: e.label, praw_pkdPrzewazajace: CASE WHEN e.is_main THEN '1' ELSE '0' END, praw_pkdWersja: '${version}'}`
        : (_version: string, kood: string) =>
            `{fiz_pkd_Kod: ${kood}, fiz_pkd_Nazwa: e.label, fiz_pkd_Przewazajace: CASE WHEN e.is_main THEN '1' ELSE '0' END}`;
    const suspended = `staatus = 'S'`;
    const resumed = `staatus = 'R' AND ${h('resumed', 20)} = 0`;
    return `SELECT
       pl_regon AS ${p}_regon9, pl_regon || '00000' AS ${p}_regon14, pl_nip AS ${p}_nip, '' AS ${p}_statusNip,
       arinimi AS ${p}_nazwa, ${p === 'praw' ? `CASE WHEN krs THEN registrikood ELSE '' END AS praw_numerWRejestrzeEwidencji,` : ''}
       strftime(esmaregistreerimise_kpv, '%Y-%m-%d') AS ${p}_dataPowstania,
       strftime(esmaregistreerimise_kpv, '%Y-%m-%d') AS ${p}_dataRozpoczeciaDzialalnosci,
       strftime(esmaregistreerimise_kpv + 3, '%Y-%m-%d') AS ${p}_dataWpisuDoRegon,
       CASE WHEN ${suspended} THEN strftime(DATE '${today}' - 90 - ${h('susp', 300)}::INTEGER, '%Y-%m-%d')
         WHEN ${resumed} THEN '2020-03-01' ELSE '' END AS ${p}_dataZawieszeniaDzialalnosci,
       CASE WHEN ${resumed} THEN '2020-09-01' ELSE '' END AS ${p}_dataWznowieniaDzialalnosci,
       CASE WHEN staatus = 'K' THEN strftime(least(esmaregistreerimise_kpv + 400 + ${h('skr', 4000)}::INTEGER, DATE '${today}'), '%Y-%m-%d') ELSE '' END
         AS ${p}_dataSkresleniaZRegon,
       'PL' AS ${p}_adSiedzKraj_Symbol,
       substr(ehak_kood, 1, 2) AS ${p}_adSiedzWojewodztwo_Symbol, substr(ehak_kood, 3, 2) AS ${p}_adSiedzPowiat_Symbol,
       substr(ehak_kood, 5, 3) AS ${p}_adSiedzGmina_Symbol, a.pc1 || a.pc2 AS ${p}_adSiedzKodPocztowy,
       lpad(CAST(${h('simc', 1000000)} AS VARCHAR), 7, '0') AS ${p}_adSiedzMiejscowosc_Symbol,
       a.town AS ${p}_adSiedzMiejscowosc_Nazwa, a.street AS ${p}_adSiedzUlica_Nazwa, a.nr AS ${p}_adSiedzNumerNieruchomosci,
       '' AS ${p}_adSiedzNumerLokalu, upper(woj) AS ${p}_adSiedzWojewodztwo_Nazwa,
       coalesce(phones, '') AS ${p}_numerTelefonu, '' AS ${p}_numerWewnetrznyTelefonu, '' AS ${p}_numerFaksu,
       coalesce(email, '') AS ${p}_adresEmail, coalesce(www, '') AS ${p}_adresStronyinternetowej,
       oiguslik_vorm AS ${p}_szczegolnaFormaPrawna_Symbol, oiguslik_vorm_tekstina AS ${p}_szczegolnaFormaPrawna_Nazwa,
       list_concat(
         list_transform(emtak, e -> ${pkdRow('2007', `CASE WHEN ${h('dots', 3)} = 0 THEN e.kood ELSE ${undotted} END`)}),
         CASE WHEN ${p === 'praw'} AND ${h('pkd25', 8)} = 0 THEN list_transform(emtak[1:1], e -> ${pkdRow('2025', undotted)}) ELSE [] END
       ) AS pkd
     FROM w_pl WHERE ${p === 'praw' ? 'NOT is_sole_trader' : 'is_sole_trader'} ORDER BY pl_regon`;
  };
  await writeJsonArray(conn, regon('praw'), out(PL_FILE_NAMES.regonPraw));
  await writeJsonArray(conn, regon('fiz'), out(PL_FILE_NAMES.regonFiz));

  // CEIDG: sole traders as the paged API returns them.
  const oldSpelling = `${h('sic', 3)} = 0`;
  const address = `{ulica: a.street, budynek: a.nr, lokal: NULL, miasto: a.town,
    kod: CASE WHEN ${oldSpelling} THEN a.pc1 || '-' || a.pc2 END,
    kodPocztowy: CASE WHEN NOT ${oldSpelling} THEN a.pc1 || '-' || a.pc2 END, wojewodztwo: woj, kraj: 'Polska'}`;
  await writeJsonArray(
    conn,
    `SELECT md5(pl_regon) AS id, arinimi AS nazwa,
       CASE WHEN NOT ${oldSpelling} THEN ${address} END AS adresDzialalnosci,
       CASE WHEN ${oldSpelling} THEN ${address} END AS adresDzialanosci,
       {imie: split_part(arinimi, ' ', 1), nazwisko: split_part(arinimi, ' ', 2), nip: pl_nip, regon: pl_regon} AS wlasciciel,
       CASE WHEN ${h('pkdobj', 2)} = 0 THEN to_json(list_transform(emtak, e -> replace(e.kood, '.', '')))
         ELSE to_json(list_transform(emtak, e -> {kod: replace(e.kood, '.', ''), opis: e.label, przewazajacy: e.is_main})) END AS pkd,
       strftime(esmaregistreerimise_kpv, '%Y-%m-%d') AS dataRozpoczecia,
       CASE WHEN staatus = 'S' THEN strftime(DATE '${today}' - 100, '%Y-%m-%d') END AS dataZawieszenia,
       CASE WHEN staatus = 'K' THEN strftime(DATE '${today}' - 500, '%Y-%m-%d') END AS dataWykreslenia,
       source_status AS status, email, www, phones AS telefon
     FROM w_pl WHERE is_sole_trader ORDER BY pl_regon`,
    out(PL_FILE_NAMES.ceidg),
  );
  return written;
}

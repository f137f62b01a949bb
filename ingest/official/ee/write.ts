import path from 'node:path';
import { createActivityLeaves, createEmtakCorrespondence } from '../activity-codes.ts';
import {
  decimalCommaSql,
  writeCsv,
  writeJsonArray,
  writerOf,
  zipInPlace,
  type WriterSteps,
} from '../write-helpers.ts';
import { createSectionTable, estonianDate } from '../writer-context.ts';
import {
  DEBTORS_HEADER,
  EE_FILE_NAMES,
  ELEMENTS,
  ELEMENTS_HEADER,
  EMTA_TAXES_HEADER,
  LIHTANDMED_HEADER,
  REPORTS_HEADER,
} from './files.ts';

/*
 * Estonia's official files from a canonical snapshot. Every quirk the reference lists is reproduced where
 * the data can carry it: BOM, dd.mm.yyyy dates, zips, quoted annual-report fields, EMTAK 2008 codes
 * (version 2) beside EMTAK 2025 ones, ended entries (lopp_kpv) the reader must skip, personal codes it must
 * drop, amended and consolidated reports, a duplicated debtor, decimal commas with no-break spaces, and
 * yldandmed records without a legal form, or no record at all (the code then comes from lihtandmed's text
 * form).
 * Filler columns the API does not use are derived from the registration code, so output is deterministic.
 */

const h = (salt: string, n: number): string => `(hash(registrikood, '${salt}') % ${n})`;
const ddmmyyyy = (expr: string): string => `strftime(${expr}, '%d.%m.%Y')`;

/**
 * The ADS normalised address, `Harju maakond, Tallinn, Kesklinna linnaosa, Tartu mnt 1`: aadress_text
 * without the postcode the ingest appends (RIK's address texts carry none; lihtandmed has it apart).
 */
const ADS = `CASE WHEN postcode IS NOT NULL AND aadress_text LIKE '%, ' || postcode
  THEN left(aadress_text, length(aadress_text) - length(postcode) - 2) ELSE aadress_text END`;
/** `Harju maakond, Tallinn, Kesklinna linnaosa` from the ADS address minus the street part (asukoht). */
const PATH = `CASE WHEN aadress_text IS NOT NULL AND asukoht IS NOT NULL
  THEN left(${ADS}, length(${ADS}) - length(asukoht) - 2) END`;

export const writeEeOfficial = writerOf([
  prepareEe,
  writeLihtandmed,
  writeYldandmed,
  writePersons,
  writeTaxes,
  writeDebtors,
  writeReports,
  writeElements,
]);

/** The as-of date as Estonian files write it (dd.mm.yyyy), and as the annual-report file names do. */
const asOfEt = (w: WriterSteps): string => estonianDate(w.asOf);
const stamp = (w: WriterSteps): string => asOfEt(w).replaceAll('.', '');

async function prepareEe({ conn, reference }: WriterSteps): Promise<void> {
  await createSectionTable(conn, reference);
  await createActivityLeaves(conn, reference);
  await createEmtakCorrespondence(conn);
  // An EMTAK 2008 code that the ingest maps back onto exactly this 2025 leaf, where one exists.
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_old_emtak AS SELECT kood, min(old) AS old FROM ee_emtak2008
    WHERE length(old) = 5 GROUP BY kood`);
}

async function writeLihtandmed({ conn, outDir, written }: WriterSteps): Promise<void> {
  // 1.1a basic data. As in the real rows (test/fixtures/real/EE), `ettevotja_aadress` and `ads_ads_oid` are
  // empty: the address is in `ads_normaliseeritud_taisaadress`.
  const lihtandmed = path.join(outDir, EE_FILE_NAMES.lihtandmed);
  await writeCsv(
    conn,
    `SELECT arinimi, registrikood, oiguslik_vorm_tekstina, oigusliku_vormi_alaliik, kmkr_nr, source_status,
       staatus_tekstina, ${ddmmyyyy('esmaregistreerimise_kpv')}, NULL,
       asukoht, ehak_kood, array_to_string(list_reverse(string_split(${PATH}, ', ')), ', '),
       postcode, (2000000 + ${h('adr', 7000000)})::VARCHAR, NULL,
       ${ADS}, 'https://ariregister.rik.ee/est/company/' || registrikood
     FROM w_companies ORDER BY registrikood`,
    lihtandmed,
    { delimiter: ';', header: LIHTANDMED_HEADER, bom: true },
  );
  await zipInPlace(lihtandmed, `${lihtandmed}.zip`);
  written.push(`${lihtandmed}.zip`);
}

async function writeYldandmed({ conn, outDir, written }: WriterSteps): Promise<void> {
  // 1.1b general data: contacts, EMTAK activities (some as EMTAK 2008, version 2), capital. Ended
  // entries (lopp_kpv set) are history the reader must skip.
  const yldandmed = path.join(outDir, EE_FILE_NAMES.yldandmed);
  await writeJsonArray(
    conn,
    `WITH a AS (
       SELECT registrikood, generate_subscripts(emtak, 1) AS ord, unnest(emtak) AS e FROM w_companies
     ), a2 AS (
       SELECT a.registrikood, a.ord, a.e, o.old,
         (o.old IS NOT NULL AND hash(a.registrikood, a.e.kood, 'v2') % 10 < 3) AS as2008
       FROM a LEFT JOIN w_old_emtak o ON o.kood = a.e.kood
     ), acts AS (
       SELECT registrikood, list({
         kirje_id: 100000 + hash(registrikood, ord) % 900000, algus_kpv: NULL::VARCHAR, lopp_kpv: NULL::VARCHAR,
         emtak_kood: CASE WHEN as2008 THEN old ELSE e.kood END, emtak_tekstina: e.label,
         emtak_versioon: CASE WHEN as2008 THEN 2 ELSE 3 END,
         emtak_versioon_tekstina: CASE WHEN as2008 THEN 'EMTAK 2008' ELSE 'EMTAK 2025' END,
         nace_kood: substr(CASE WHEN as2008 THEN old ELSE e.kood END, 1, 2) || '.' || substr(CASE WHEN as2008 THEN old ELSE e.kood END, 3, 2),
         on_pohitegevusala: e.is_main} ORDER BY ord) AS list
       FROM a2 GROUP BY registrikood
     )
     SELECT registrikood::BIGINT AS ariregistri_kood, arinimi AS nimi, {
       esmaregistreerimise_kpv: ${ddmmyyyy('esmaregistreerimise_kpv')},
       staatus: source_status, staatus_tekstina: staatus_tekstina,
       -- Some records carry no legal form (as the public COLT fixture's records); lihtandmed's text form then
       -- gives the code.
       oiguslik_vorm: CASE WHEN ${h('novorm', 10)} <> 0 THEN oiguslik_vorm END,
       oiguslik_vorm_tekstina: CASE WHEN ${h('novorm', 10)} <> 0 THEN oiguslik_vorm_tekstina END,
       oigusliku_vormi_alaliik: oigusliku_vormi_alaliik, tegutseb: staatus = 'R',
       tegutseb_tekstina: CASE WHEN staatus = 'R' THEN 'Jah' ELSE 'Ei' END,
       aadressid: [{riik: 'EST', riik_tekstina: 'Eesti', ehak: ehak_kood, ehak_nimetus: ehak_nimetus,
         tanav_maja_korter: asukoht, aadress_ads__ads_normaliseeritud_taisaadress: ${ADS}, postiindeks: postcode,
         algus_kpv: ${ddmmyyyy('esmaregistreerimise_kpv')}, lopp_kpv: NULL::VARCHAR}],
       sidevahendid: list_transform(list_filter(contacts, x -> x."source" IS NULL), x -> {
           liik: x.liik,
           liik_tekstina: CASE x.liik WHEN 'EMAIL' THEN 'Elektronposti aadress' WHEN 'WWW' THEN 'Interneti WWW aadress'
             WHEN 'TEL' THEN 'Telefon' WHEN 'MOB' THEN 'Mobiiltelefon' END,
           sisu: x.sisu, lopp_kpv: NULL::VARCHAR})
         || CASE WHEN ${h('oldmail', 15)} = 0
           THEN [{liik: 'EMAIL', liik_tekstina: 'Elektronposti aadress', sisu: 'vana@' || registrikood || '.ee',
             lopp_kpv: '01.03.2021'}] ELSE [] END,
       teatatud_tegevusalad: coalesce(acts.list, [])
         || CASE WHEN ${h('oldact', 12)} = 0 THEN [{kirje_id: 1, algus_kpv: '01.01.2010', lopp_kpv: '31.12.2019',
           emtak_kood: '47911', emtak_tekstina: 'Jaemüük posti või interneti teel', emtak_versioon: 2,
           emtak_versioon_tekstina: 'EMTAK 2008', nace_kood: '47.91', on_pohitegevusala: false}] ELSE [] END,
       kapitalid: CASE WHEN kapital IS NOT NULL AND ${h('eek', 10)} = 0
           THEN [{kapitali_suurus: '40000.00', kapitali_valuuta: 'EEK', kapitali_valuuta_tekstina: 'Eesti kroon',
             lopp_kpv: '31.12.2010'}] ELSE [] END
         || CASE WHEN kapital IS NOT NULL THEN [{kapitali_suurus: printf('%.2f', kapital_amount),
           kapitali_valuuta: kapital_currency, kapitali_valuuta_tekstina: 'Euro', lopp_kpv: NULL::VARCHAR}] ELSE [] END,
       info_majandusaasta_aruannetest: CASE WHEN annual_report_year IS NOT NULL
         THEN [{majandusaasta_perioodi_algus_kpv: '01.01.' || annual_report_year,
           majandusaasta_perioodi_lopp_kpv: '31.12.' || annual_report_year,
           tootajate_arv: CAST(last_quarter_employees_number AS BIGINT)::VARCHAR}] ELSE [] END
     } AS yldandmed
     FROM w_companies LEFT JOIN acts USING (registrikood)
     -- Some companies have no record here (so their legal-form code must come from lihtandmed's text form).
     WHERE NOT (${h('noyld', 12)} = 0 AND len(contacts) = 0 AND acts.list IS NULL AND kapital IS NULL)
     ORDER BY registrikood`,
    yldandmed,
  );
  await zipInPlace(yldandmed, `${yldandmed}.zip`);
  written.push(`${yldandmed}.zip`);
}

async function writePersons({ conn, outDir, written }: WriterSteps): Promise<void> {
  // 1.1c persons on the card: names split into first name and surname, a synthetic personal code the
  // ingest must drop, a former board member (ended) and a contact person (KISIK) it must leave out.
  const persons = path.join(outDir, EE_FILE_NAMES.persons);
  const personCode = `(30000000000 + hash(registrikood, k, 'ik') % 69999999999)::VARCHAR`;
  await writeJsonArray(
    conn,
    `SELECT registrikood::BIGINT AS ariregistri_kood, arinimi AS nimi,
       list_transform(people, (p, k) -> {
         kirje_id: 1000000 + hash(registrikood, k) % 9000000, kaardi_tyyp: 'C', kande_nr: 1,
         isiku_tyyp: p.isiku_tyyp, isiku_roll: p.roll, isiku_roll_tekstina: p.roll_tekstina,
         eesnimi: CASE WHEN p.isiku_tyyp = 'F' AND strpos(p.nimi, ' ') > 0 THEN split_part(p.nimi, ' ', 1) END,
         nimi_arinimi: CASE WHEN p.isiku_tyyp = 'F' AND strpos(p.nimi, ' ') > 0
           THEN substr(p.nimi, strpos(p.nimi, ' ') + 1) ELSE p.nimi END,
         isikukood_registrikood: ${personCode},
         algus_kpv: ${ddmmyyyy('p.algus_kpv')}, lopp_kpv: NULL::VARCHAR})
       || CASE WHEN ${h('exboard', 10)} = 0 THEN [{kirje_id: 1, kaardi_tyyp: 'C', kande_nr: 1, isiku_tyyp: 'F',
         isiku_roll: 'JUHL', isiku_roll_tekstina: 'Juhatuse liige', eesnimi: 'Endine', nimi_arinimi: 'Juht',
         isikukood_registrikood: '37001010000', algus_kpv: '01.01.2015', lopp_kpv: '31.12.2019'}] ELSE [] END
       || CASE WHEN ${h('kisik', 20)} = 0 THEN [{kirje_id: 2, kaardi_tyyp: 'C', kande_nr: 1, isiku_tyyp: 'F',
         isiku_roll: 'KISIK', isiku_roll_tekstina: 'Kontaktisik', eesnimi: 'Kontakt', nimi_arinimi: 'Isik',
         isikukood_registrikood: '48001010000', algus_kpv: '01.01.2020', lopp_kpv: NULL::VARCHAR}] ELSE [] END
         AS kaardile_kantud_isikud
     FROM w_companies WHERE len(people) > 0 ORDER BY registrikood`,
    persons,
  );
  await zipInPlace(persons, `${persons}.zip`);
  written.push(`${persons}.zip`);
}

async function writeTaxes(w: WriterSteps): Promise<void> {
  const { conn, outDir, written } = w;
  // 1.2 EMTA quarterly taxes, turnover and employees: the English-header twin, one row per company and
  // year, quarters side by side; a missing quarter is empty. Comma-separated with a BOM.
  const taxes = path.join(outDir, EE_FILE_NAMES.taxes);
  const q = (col: string, quarter: number) => `max(CASE WHEN h.quarter = ${quarter} THEN h.${col} END)`;
  const quarters = (col: string) => [1, 2, 3, 4].map((n) => q(col, n)).join(', ');
  await writeCsv(
    conn,
    `SELECT '${asOfEt(w)}', c.registrikood, any_value(c.arinimi),
       CASE WHEN any_value(c.oiguslik_vorm) IN ('MTÜ', 'SA', 'KÜ') THEN 'Non-profit association or foundation'
         ELSE 'Company' END,
       replace(any_value(split_part(c.aadress_text, ', ', 1)), ' maakond', '') || ' ( ' || any_value(split_part(c.aadress_text, ', ', 2)) || ' )',
       upper(any_value(s.section_label)), h."year",
       ${quarters('state_taxes')}, ${quarters('labour_taxes')}, ${quarters('turnover')}, ${quarters('employees')}
     FROM w_history h JOIN w_companies c USING (registrikood)
       LEFT JOIN w_sections s ON s.kood = c.emtak[1].kood
     WHERE h.granularity = 'quarterly'
     GROUP BY c.registrikood, h."year" ORDER BY c.registrikood, h."year"`,
    taxes,
    { delimiter: ',', header: EMTA_TAXES_HEADER, bom: true },
  );
  written.push(taxes);
}

async function writeDebtors(w: WriterSteps): Promise<void> {
  const { conn, outDir, written } = w;
  // 1.3 tax debtors: decimal commas with no-break-space thousands; one debtor listed twice and one code
  // that is not in the register (a foreign company's Estonian branch) for the reader to cope with.
  const debtors = path.join(outDir, EE_FILE_NAMES.debtors);
  const debt = `(round(50 + ${h('debt', 2000000)} / 100.0 + exp(${h('debtexp', 12)}), 2))`;
  await writeCsv(
    conn,
    `WITH d AS (
       SELECT registrikood, arinimi, ${debt} AS debt, ${h('disp', 4)} = 0 AS disputed, ${h('sched', 3)} = 0 AS scheduled
       FROM w_companies WHERE has_tax_debt
     ), rows AS (
       SELECT * FROM d
       UNION ALL (SELECT * FROM d ORDER BY registrikood LIMIT 1)
       UNION ALL SELECT '75000018', 'Foreign Branch Eesti filiaal', 1234.5, false, false
     )
     SELECT '${asOfEt(w)}', registrikood, arinimi, ${decimalCommaSql('debt', 2, true)},
       ${decimalCommaSql('CASE WHEN disputed THEN debt ELSE 0 END', 2, true)},
       ${decimalCommaSql('CASE WHEN scheduled THEN debt ELSE 0 END', 2, true)},
       CASE WHEN scheduled THEN '31.12.2027' END, '15.0' || (1 + hash(registrikood) % 9)::VARCHAR || '.2025'
     FROM rows ORDER BY registrikood`,
    debtors,
    { delimiter: ';', header: DEBTORS_HEADER, bom: true },
  );
  written.push(debtors);
}

async function writeReports(w: WriterSteps): Promise<void> {
  const { conn, outDir, written } = w;
  // 1.1d annual reports: general data (every text field quoted) and one elements file per fiscal year.
  // Some companies also filed the year before (older figures), a consolidated report (ignored), or their
  // figures under a second report id (taidetud_aruanne_report_id).
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_reports AS
    WITH latest AS (
      SELECT registrikood, oiguslik_vorm, annual_report_year AS yr, false AS consolidated, 1 AS factor,
        annual_revenue, annual_net_profit, annual_equity, annual_total_assets
      FROM w_companies WHERE annual_report_year IS NOT NULL
    ), extra AS (
      SELECT registrikood, oiguslik_vorm, yr - 1 AS yr, false, 0.9, annual_revenue, annual_net_profit,
        annual_equity, annual_total_assets FROM latest WHERE ${h('prev', 5)} = 0
      UNION ALL
      SELECT registrikood, oiguslik_vorm, yr, true, 1.7, annual_revenue, annual_net_profit, annual_equity,
        annual_total_assets FROM latest WHERE ${h('cons', 25)} = 0
    ), all_reports AS (SELECT * FROM latest UNION ALL SELECT * FROM extra)
    SELECT *, 100000 + row_number() OVER (ORDER BY registrikood, yr, consolidated) AS report_id,
      CASE WHEN ${h('taidetud', 30)} = 0 THEN 900000 + row_number() OVER (ORDER BY registrikood, yr, consolidated) END
        AS taidetud_id
    FROM all_reports`);
  const reports = path.join(outDir, `1.aruannete_yldandmed_kuni_${stamp(w)}.csv`);
  await writeCsv(
    conn,
    `SELECT report_id, taidetud_id, registrikood, oiguslik_vorm, 'Registrisse kantud', yr,
       CASE WHEN consolidated THEN 'Jah' ELSE 'Ei' END, '01.01.' || yr, '31.12.' || yr,
       '14.06.' || (yr + 1), 'Ei', 'Väikeettevõtja', 'Väikeettevõtja', NULL, NULL, NULL, NULL, NULL
     FROM w_reports ORDER BY report_id`,
    reports,
    {
      delimiter: ';',
      header: REPORTS_HEADER,
      quoteHeader: true,
      forceQuote: [
        'õiguslik vorm',
        'staatus',
        'kas konsolideeritud?',
        'period_start',
        'period_end',
        'esitatud_kpv',
        'kas auditeeritud?',
        'valitud aruanne kategooria',
        'minimaalne kategooria andmete alusel',
      ],
    },
  );
  await zipInPlace(reports, reports.replace(/\.csv$/, '.zip'));
  written.push(reports.replace(/\.csv$/, '.zip'));
}

async function writeElements(w: WriterSteps): Promise<void> {
  const { conn, outDir, written } = w;
  const years = (await conn.runAndReadAll('SELECT DISTINCT yr FROM w_reports ORDER BY yr')).getRows();
  for (const [yr] of years) {
    const file = path.join(outDir, `4.${String(yr)}_aruannete_elemendid_kuni_${stamp(w)}.csv`);
    const element = (name: string, table: string, label: string, value: string) =>
      `SELECT coalesce(taidetud_id, report_id) AS rid, '${table}' AS tabel, '${label}' AS lbl,
         '${name}' || CASE WHEN consolidated THEN 'Consolidated' ELSE '' END AS nimetus,
         CAST(round(${value} * factor) AS VARCHAR) AS vaartus
       FROM w_reports WHERE yr = ${String(yr)} AND ${value} IS NOT NULL`;
    await writeCsv(
      conn,
      `SELECT * FROM (
         ${element(ELEMENTS.revenue, 'Kasumiaruanne skeem 1', 'Müügitulu', 'annual_revenue')}
         UNION ALL ${element(ELEMENTS.netProfit, 'Kasumiaruanne skeem 1', 'Aruandeaasta kasum (kahjum)', 'annual_net_profit')}
         UNION ALL ${element(ELEMENTS.equity, 'Bilanss', 'Omakapital', 'annual_equity')}
         UNION ALL ${element(ELEMENTS.totalAssets, 'Bilanss', 'Varad', 'annual_total_assets')}
         UNION ALL ${element('TotalProfitLoss', 'Kasumiaruanne skeem 1', 'Ärikasum (kahjum)', 'annual_net_profit * 1.1')}
       ) ORDER BY rid, nimetus`,
      file,
      {
        delimiter: ';',
        header: ELEMENTS_HEADER,
        quoteHeader: true,
        forceQuote: ['tabel', 'elemendi_label', 'elemendi_nimetus', 'vaartus'],
      },
    );
    await zipInPlace(file, file.replace(/\.csv$/, '.zip'));
    written.push(file.replace(/\.csv$/, '.zip'));
  }
}

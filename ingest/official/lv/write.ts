import { createActivityLeaves, createNaceCorrespondence } from '../activity-codes.ts';
import { writeCsv, writerOf, type WriterSteps } from '../write-helpers.ts';
import {
  BALANCE_HEADER,
  INCOME_HEADER,
  INSOLVENCY_HEADER,
  LIQUIDATIONS_HEADER,
  LV_EXTRA_FILE_NAMES,
  LV_FILE_NAMES,
  OFFICERS_HEADER,
  REGISTER_HEADER,
  STATEMENTS_HEADER,
  VAT_HEADER,
  VID_TAXES_HEADER,
} from './files.ts';

/*
 * Latvia's official files from a canonical snapshot, with the reference's quirks: BOM, RFC quoting with
 * `""` (names carry quotes), a blank `closed` flag that is a single space, ISO dates, amended financial
 * statements (the newest created_at wins), VID amounts in thousands of EUR with comma delimiters and
 * padded NACE codes (NACE Rev. 2 before tax year 2024), and a '?' code the reader must step over.
 */

const h = (salt: string, n: number, key = 'registrikood'): string => `(hash(${key}, '${salt}') % ${n})`;
const COMMERCIAL = `oiguslik_vorm NOT IN ('BDR', 'NOD')`;

export const writeLvOfficial = writerOf([
  writeRegister,
  writeOfficers,
  writeFinancialStatements,
  writeVidTaxes,
]);

async function writeRegister({ conn, today, out }: WriterSteps): Promise<void> {
  await writeCsv(
    conn,
    `SELECT registrikood, 'LV' || lpad(${h('sepa', 100)}::VARCHAR, 2, '0') || 'ZZZ' || registrikood, arinimi,
       CASE WHEN strpos(arinimi, '"') > 0 THEN trim(split_part(arinimi, '"', 1)) ELSE '' END,
       CASE WHEN strpos(arinimi, '"') > 0 THEN regexp_extract(arinimi, '"(.*)"', 1) ELSE arinimi END,
       '', CASE WHEN strpos(arinimi, '"') > 0 THEN 0 ELSE 1 END,
       CASE WHEN ${COMMERCIAL} THEN 'K' ELSE 'B' END,
       CASE WHEN ${COMMERCIAL} THEN 'Komercreģistrs' ELSE 'Biedrību un nodibinājumu reģistrs' END,
       oiguslik_vorm, oiguslik_vorm_tekstina, esmaregistreerimise_kpv,
       CASE WHEN staatus = 'K' THEN least(esmaregistreerimise_kpv + 200 + ${h('term', 4000)}::INTEGER, DATE '${today}') END,
       CASE WHEN staatus = 'K' THEN coalesce(source_status, 'L') ELSE ' ' END,
       asukoht, regexp_extract(aadress_text, 'LV-(\\d+)$', 1),
       (100000000 + ${h('addr', 900000000)})::VARCHAR, '0', (100000000 + ${h('city', 9000000)})::VARCHAR,
       -- As UR writes them: an empty ATVK quoted (""), an empty re-registration term bare.
       coalesce(ehak_kood, ''), NULL
     FROM w_companies ORDER BY registrikood`,
    out(LV_FILE_NAMES.register),
    { delimiter: ';', header: REGISTER_HEADER, bom: true },
  );
}

async function writeOfficers({ conn, out }: WriterSteps): Promise<void> {
  await writeCsv(
    conn,
    `WITH p AS (SELECT registrikood, generate_subscripts(people, 1) AS k, unnest(people) AS p FROM w_companies)
     SELECT registrikood, CASE WHEN p.isiku_tyyp = 'F' THEN 'NATURAL_PERSON' ELSE 'LEGAL_ENTITY' END, p.roll,
       CASE WHEN p.roll IN ('BOARD_MEMBER', 'CHAIR_OF_BOARD') THEN 'EXECUTIVE_BOARD' ELSE '' END, p.nimi,
       CASE WHEN p.isiku_tyyp = 'F' AND strpos(p.nimi, ' ') > 0 THEN split_part(p.nimi, ' ', 1) END,
       CASE WHEN p.isiku_tyyp = 'F' AND strpos(p.nimi, ' ') > 0 THEN substr(p.nimi, strpos(p.nimi, ' ') + 1) END,
       lpad((hash(registrikood, k, 'pk') % 1000000)::VARCHAR, 6, '0') || '-*****', NULL, '',
       CASE WHEN p.roll = 'PROCURATOR' THEN 'WITH_AT_LEAST' ELSE 'ALONE' END,
       CASE WHEN p.roll = 'PROCURATOR' THEN '2' ELSE '' END, p.algus_kpv
     FROM p ORDER BY registrikood, k`,
    out(LV_FILE_NAMES.officers),
    { delimiter: ';', header: OFFICERS_HEADER, bom: true },
  );
}

async function writeFinancialStatements({ conn, out }: WriterSteps): Promise<void> {
  // Annual reports: one statement per company and filed year; a few filed twice (an amendment), the older
  // filing with other figures. The latest year carries the snapshot's annual_* figures.
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_fs AS
    WITH base AS (
      SELECT h.registrikood, h."year", h.turnover, h.employees, h.as_of, c.annual_report_year,
        c.annual_net_profit, c.annual_equity, c.annual_total_assets, false AS superseded
      FROM w_history h JOIN w_companies c USING (registrikood) WHERE h.granularity = 'annual'
    ), all_fs AS (
      SELECT * FROM base
      UNION ALL SELECT * REPLACE (true AS superseded) FROM base WHERE hash(registrikood, "year", 'amend') % 40 = 0
    )
    SELECT *, 700000 + row_number() OVER (ORDER BY registrikood, "year", superseded DESC) AS id,
      CASE WHEN superseded THEN 1.1 ELSE 1 END AS f,
      "year" = annual_report_year AND NOT superseded AS latest
    FROM all_fs`);
  await writeCsv(
    conn,
    `SELECT id, 16000000 + id, registrikood, 'DokGPUIENv1', 'UGP', "year", make_date("year", 1, 1), as_of,
       CAST(employees + CASE WHEN superseded THEN 1 ELSE 0 END AS BIGINT), 'ONES', 'EUR',
       strftime(make_timestamp("year" + 1, 4, 30, 12, 0, 0) - CASE WHEN superseded THEN INTERVAL 20 DAY ELSE INTERVAL 0 DAY END,
         '%Y-%m-%dT%H:%M:%S')
     FROM w_fs ORDER BY id`,
    out(LV_FILE_NAMES.statements),
    { delimiter: ';', header: STATEMENTS_HEADER, bom: true },
  );
  const zeros = (n: number) => Array.from({ length: n }, () => '0').join(', ');
  await writeCsv(
    conn,
    `SELECT id, 16000000 + id, round(turnover * f), ${zeros(19)},
       round(CASE WHEN latest THEN annual_net_profit ELSE turnover * 0.05 END * f * 1.2),
       round(CASE WHEN latest THEN annual_net_profit ELSE turnover * 0.05 END * f * 0.2),
       round(CASE WHEN latest THEN annual_net_profit ELSE turnover * 0.05 END * f), 0, 0,
       round(CASE WHEN latest THEN annual_net_profit ELSE turnover * 0.05 END * f)
     FROM w_fs ORDER BY id`,
    out(LV_FILE_NAMES.income),
    { delimiter: ';', header: INCOME_HEADER, bom: true },
  );
  await writeCsv(
    conn,
    `SELECT id, 16000000 + id, ${zeros(9)},
       round(CASE WHEN latest THEN annual_total_assets ELSE turnover * 0.6 END * f), 0, 0, 0, 0,
       round(CASE WHEN latest THEN annual_equity ELSE turnover * 0.3 END * f),
       round(CASE WHEN latest THEN annual_total_assets ELSE turnover * 0.6 END * f)
     FROM w_fs ORDER BY id`,
    out(LV_FILE_NAMES.balance),
    { delimiter: ';', header: BALANCE_HEADER, bom: true },
  );
}

async function writeVidTaxes({ conn, reference, out }: WriterSteps): Promise<void> {
  // VID paid taxes, the last three tax years, commercial companies only; amounts in thousands of EUR.
  await createActivityLeaves(conn, reference);
  await createNaceCorrespondence(conn, false);
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE w_old_nace AS SELECT kood, min(old) AS old FROM nace_rev2 GROUP BY kood`,
  );
  await writeCsv(
    conn,
    `WITH t AS (
       SELECT h.registrikood, h."year", h.turnover, h.employees, c.arinimi, c.oiguslik_vorm, c.ehak_kood,
         c.ehak_nimetus, c.emtak[1].kood AS kood, o.old,
         max(h."year") OVER (PARTITION BY h.registrikood) AS last_year,
         count(*) OVER (PARTITION BY h.registrikood) AS n
       FROM w_history h JOIN w_companies c USING (registrikood) LEFT JOIN w_old_nace o ON o.kood = c.emtak[1].kood
       WHERE h.granularity = 'annual' AND h."year" BETWEEN 2023 AND 2025 AND c.${COMMERCIAL}
     )
     SELECT registrikood, arinimi, "year", oiguslik_vorm,
       CASE WHEN "year" = last_year AND n > 1 AND hash(registrikood, 'q') % 25 = 0 THEN '?'
         -- Before 2024 VID wrote NACE Rev. 2: the predecessor of the world's Rev. 2.1 class, or blank
         -- where the class is new in Rev. 2.1 (writing the new code would mean another Rev. 2 class).
         WHEN "year" < 2024 THEN coalesce(rpad(old, 6, ' '), '')
         ELSE kood END,
       ehak_kood, ehak_nimetus, printf('%.2f', turnover * 0.21 / 1000), printf('%.2f', turnover * 0.05 / 1000),
       printf('%.2f', turnover * 0.09 / 1000), CAST(employees AS BIGINT)
     FROM t ORDER BY registrikood, "year"`,
    out(LV_FILE_NAMES.taxes),
    { delimiter: ',', header: VID_TAXES_HEADER, quoteHeader: true, forceQuote: [...VID_TAXES_HEADER] },
  );

  await writeCsv(
    conn,
    `SELECT 'LV' || registrikood, arinimi, 'ir', esmaregistreerimise_kpv + ${h('vatreg', 400)}::INTEGER, 'nav'
     FROM w_companies WHERE vat_active
     UNION ALL
     SELECT 'LV' || registrikood, arinimi, 'nav', esmaregistreerimise_kpv, 'nav'
     FROM w_companies WHERE NOT vat_active AND staatus = 'K' AND ${h('oldvat', 3)} = 0
     ORDER BY 1`,
    out(LV_EXTRA_FILE_NAMES.vat),
    { delimiter: ',', header: VAT_HEADER },
  );

  await writeCsv(
    conn,
    `SELECT 50000 + ${h('proc', 50000)}, registrikood, esmaregistreerimise_kpv + 300 + ${h('ins', 2000)}::INTEGER,
       NULL, 'INSOLVENCY', 'LEGAL_PERSON', '', 'Rīgas pilsētas tiesa'
     FROM w_companies WHERE staatus = 'N'
     UNION ALL
     SELECT 10000 + ${h('proc2', 40000)}, registrikood, DATE '2019-03-01', DATE '2020-05-01',
       'LEGAL_PROTECTION', 'LEGAL_PERSON', 'Izbeigts', 'Vidzemes rajona tiesa'
     FROM w_companies WHERE staatus = 'R' AND ${h('tap', 60)} = 0
     ORDER BY 2`,
    out(LV_EXTRA_FILE_NAMES.insolvency),
    { delimiter: ';', header: INSOLVENCY_HEADER, bom: true },
  );

  await writeCsv(
    conn,
    `SELECT registrikood FROM w_companies WHERE staatus = 'L' OR (staatus = 'K' AND ${h('liq', 2)} = 0)
     ORDER BY 1`,
    out(LV_EXTRA_FILE_NAMES.liquidations),
    { delimiter: ';', header: LIQUIDATIONS_HEADER, bom: true },
  );
}

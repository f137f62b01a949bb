import fs from 'node:fs';
import path from 'node:path';
import { decimalCommaSql, writeCsv, writerOf, zipInPlace, type WriterSteps } from '../write-helpers.ts';
import {
  JAR_HEADER,
  LT_FILE_NAMES,
  PLNA_HEADER,
  SODRA_HEADER,
  VMI_REGISTER_HEADER,
  VMI_TAXES_HEADER,
} from './files.ts';

/*
 * Lithuania's official files from a canonical snapshot, with the reference's quirks: pipe-delimited JAR with
 * `""` escapes and one duplicated row, Sodra's `Label (key)` headers with a decimal comma, a BOM and an
 * extra column in one year and no 2024 file, RC statements comma-delimited up to 2022 and pipe-delimited
 * after with amended filings repeated, and VMI's cumulative-to-month tax amounts split over tax types.
 */

const h = (salt: string, n: number, key = 'registrikood'): string => `(hash(${key}, '${salt}') % ${n})`;
/** `62.10` → `621000`: the 6-digit EVRK Sodra and VMI write. */
const evrk6 = (expr: string): string => `replace(${expr}, '.', '') || '00'`;

export const writeLtOfficial = writerOf([writeJar, writeSodra, writePlna, writeVmiRegister, writeVmiTaxes]);

async function writeJar({ conn, today, out }: WriterSteps): Promise<void> {
  await writeCsv(
    conn,
    `WITH j AS (
       SELECT registrikood, arinimi, aadress_text, esmaregistreerimise_kpv, oiguslik_vorm, oiguslik_vorm_tekstina,
         source_status, staatus_tekstina,
         least(esmaregistreerimise_kpv + ${h('stat', 6000)}::INTEGER, DATE '${today}') AS stat_nuo
       FROM w_companies
     )
     SELECT *, DATE '${today}' FROM j
     UNION ALL (SELECT *, DATE '${today}' FROM j ORDER BY registrikood LIMIT 1)
     ORDER BY 1`,
    out(LT_FILE_NAMES.jar),
    { delimiter: '|', header: JAR_HEADER },
  );
}

async function writeSodra({ conn, outDir, written }: WriterSteps): Promise<void> {
  const sodraYears = (
    await conn.runAndReadAll(`SELECT DISTINCT "year" FROM w_history WHERE granularity = 'monthly' ORDER BY 1`)
  )
    .getRows()
    .map(([y]) => Number(y));
  for (const year of sodraYears) {
    const file = path.join(outDir, LT_FILE_NAMES.sodra(year).replace(/\.zip$/, ''));
    // The newest year's file has a BOM and one more column, as yearly files drift.
    const newest = year === sodraYears[sodraYears.length - 1];
    await writeCsv(
      conn,
      `SELECT 1000000 + ${h('sodra', 8000000, 'c.registrikood')}, c.registrikood, c.arinimi, c.ehak_nimetus,
         ${evrk6('c.emtak[1].kood')}, c.emtak[1].label, h."year" * 100 + h."month",
         ${decimalCommaSql(`1200 + hash(c.registrikood, h."month", 'wage') % 150000 / 100.0`, 2)},
         CAST(h.employees AS BIGINT),
         ${decimalCommaSql(`1100 + hash(c.registrikood, h."month", 'wage2') % 150000 / 100.0`, 2)},
         CAST(round(h.employees * 0.9) AS BIGINT)
         ${newest ? `, ${decimalCommaSql(`h.employees * 312.5`, 2)}` : ''}
       FROM w_history h JOIN w_companies c USING (registrikood)
       WHERE h.granularity = 'monthly' AND h."year" = ${year} AND h.employees IS NOT NULL
       ORDER BY c.registrikood, h."month"`,
      file,
      {
        delimiter: ';',
        header: newest ? [...SODRA_HEADER, 'Valstybinio socialinio draudimo įmoka (tax)'] : SODRA_HEADER,
        bom: newest,
      },
    );
    await zipInPlace(file, `${file}.zip`);
    written.push(`${file}.zip`);
  }
}

async function writePlna({ conn, today, out }: WriterSteps): Promise<void> {
  // RC profit-and-loss statements, one file per year of the period end; amended filings repeat a row with
  // an earlier reg_date (the reader keeps the latest). template_name is the real one, commas included, so
  // the comma-delimited years quote it.
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_plna AS
    WITH a AS (
      SELECT h.registrikood, h.turnover, h.as_of, c.arinimi, c.oiguslik_vorm, c.oiguslik_vorm_tekstina,
        c.source_status, c.staatus_tekstina, false AS amended
      FROM w_history h JOIN w_companies c USING (registrikood)
      WHERE h.granularity = 'annual' AND h.turnover IS NOT NULL
    )
    SELECT * FROM a
    UNION ALL SELECT * REPLACE (round(turnover * 0.8) AS turnover, true AS amended) FROM a
      WHERE hash(registrikood, as_of, 'amend') % 30 = 0`);
  const plnaYears = (await conn.runAndReadAll(`SELECT DISTINCT year(as_of) FROM w_plna ORDER BY 1`))
    .getRows()
    .map(([y]) => Number(y));
  for (const year of plnaYears) {
    await writeCsv(
      conn,
      `SELECT registrikood, arinimi, oiguslik_vorm, oiguslik_vorm_tekstina, source_status, staatus_tekstina, 'FS0129',
         'Mažų ir labai mažų įmonių, netaikančių išimčių, finansinių ataskaitų rinkinys', 'IST024', 'PELNO (NUOSTOLIŲ) ATASKAITA',
         as_of + INTERVAL 1 DAY - INTERVAL 1 YEAR, as_of,
         as_of + CASE WHEN amended THEN 60 ELSE 120 END, round(turnover * 0.08), round(turnover * 0.06),
         turnover, DATE '${today}'
       FROM w_plna WHERE year(as_of) = ${year} ORDER BY registrikood, amended DESC`,
      out(LT_FILE_NAMES.plna(year)),
      // The delimiter changed from ',' (2015-2022) to '|' (2023 on).
      { delimiter: year <= 2022 ? ',' : '|', header: PLNA_HEADER },
    );
  }
}

async function writeVmiRegister({ conn, out }: WriterSteps): Promise<void> {
  // VMI taxpayer register: one row per company and activity (main flagged), VAT registration; a former
  // VAT registration and an ended activity for the reader to skip.
  await writeCsv(
    conn,
    `WITH a AS (
       SELECT registrikood, arinimi, vat_active, vat_number, esmaregistreerimise_kpv, ehak_nimetus,
         generate_subscripts(emtak, 1) AS k, unnest(emtak) AS e
       FROM w_companies
     ), rows AS (
       SELECT registrikood, arinimi, vat_active, vat_number, esmaregistreerimise_kpv, k, e.kood AS kood,
         e.is_main AS main, NULL::DATE AS ended
       FROM a
       UNION ALL
       SELECT registrikood, arinimi, vat_active, vat_number, esmaregistreerimise_kpv, 99, '47.91', false,
         DATE '2019-12-31'
       FROM w_companies WHERE ${h('oldact', 15)} = 0
     )
     SELECT registrikood, arinimi, NULL, '1',
       CASE WHEN vat_active THEN vat_number WHEN ${h('oldvat', 12)} = 0 THEN 'LT' || registrikood || '17' END,
       CASE WHEN vat_active OR ${h('oldvat', 12)} = 0 THEN esmaregistreerimise_kpv + ${h('vat', 300)}::INTEGER END,
       CASE WHEN NOT vat_active AND ${h('oldvat', 12)} = 0 THEN DATE '2022-06-30' END,
       '', '', '', ${evrk6('kood')}, esmaregistreerimise_kpv, ended, CASE WHEN main THEN 'true' ELSE 'false' END, ''
     FROM rows ORDER BY registrikood, k`,
    out(LT_FILE_NAMES.vmiRegister),
    { delimiter: ',', header: VMI_REGISTER_HEADER },
  );
}

async function writeVmiTaxes({ conn, outDir, today, out }: WriterSteps): Promise<void> {
  // VMI taxes paid: cumulative to the month, per tax type; the annual total is the December figure of the
  // two types together, the current year is year-to-date.
  await writeCsv(
    conn,
    `WITH t AS (
       SELECT registrikood, "year", CAST(state_taxes AS DECIMAL(18, 2)) AS total,
         CASE WHEN granularity = 'year_to_date' THEN month(as_of) ELSE 12 END AS last_month
       FROM w_history WHERE state_taxes IS NOT NULL AND granularity IN ('annual', 'year_to_date')
     ), split AS (
       SELECT registrikood, "year", last_month, 'PVM' AS tipas, round(total * 0.6, 2) AS part FROM t
       UNION ALL SELECT registrikood, "year", last_month, 'PM', total - round(total * 0.6, 2) FROM t
     ), m AS (
       SELECT s.*, mm AS menuo FROM split s, range(3, 13, 3) r(mm) WHERE mm <= s.last_month
       UNION ALL SELECT s.*, s.last_month FROM split s WHERE s.last_month % 3 <> 0
     )
     SELECT registrikood, tipas, "year", menuo,
       CASE WHEN menuo = last_month THEN part ELSE round(part * menuo / last_month, 2) END,
       DATE '${today}' - 20
     FROM m ORDER BY registrikood, "year", tipas, menuo`,
    out(LT_FILE_NAMES.vmiTaxes),
    { delimiter: ',', header: VMI_TAXES_HEADER },
  );
  if (!fs.existsSync(outDir)) throw new Error(`${outDir} was not written`);
}

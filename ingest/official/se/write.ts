import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { SE_EMPLOYEE_BANDS } from '../../../src/contract/data-contract.ts';
import { sqlPath } from '../../pipeline/sql.ts';
import { writeCsv, writeJsonArray, writerOf, zipInPlace, type WriterSteps } from '../write-helpers.ts';
import { isoDate, type WriterContext } from '../writer-context.ts';
import { BOLAGSVERKET_HEADER, CFAR_HEADER, FDB_KEYS, SCB_JE_HEADER, SE_FILE_NAMES } from './files.ts';
import { SE_NAME_TYPES, seReklamCode } from './codes.ts';

/*
 * Sweden's official files from a canonical snapshot, with the reference's quirks: Bolagsverket's every-field
 * quoted `;` file with `$` sub-fields, `|`-separated repeats (trade names in the name field of some
 * companies, on rows of their own for others), a leading `|` before proceedings, finished proceedings
 * (`-AVSLAVOMFO`) beside ongoing ones, sole traders under a personal number (PERSON-IDORG), free text
 * with `;`, quotes and line breaks; SCB's ISO-8859-1 tab files with upper-case names and addresses, the
 * `16` prefix on legal persons' PeOrgNr, postcodes without their space, and the marketing block both as the
 * documented two-digit code and as the bare `1` real samples show; the FDB extract as JSON with keys holding
 * spaces, commas and Swedish letters and the size class as a number.
 */

/** Rows of one FDB `HamtaForetag` answer at most (SCB's cap). */
const FDB_PAGE_ROWS = 2000;

/**
 * A text file of raw lines: `header`, then one line per row of `select` with its fields joined by
 * `delimiter` (NULL as empty) and wrapped in `wrap` on both sides, with no quoting or escaping at all, as
 * Bolagsverket (every field in `"`, inner quotes left bare) and SCB (no quotes, a `"` is data) write.
 */
async function writeRaw(
  conn: WriterContext['conn'],
  select: string,
  file: string,
  opts: { header: readonly string[]; delimiter: string; wrap?: string },
): Promise<void> {
  const body = `${file}.body`;
  const n = opts.header.length;
  const wrap = (opts.wrap ?? '').replaceAll("'", "''");
  const join = `${wrap}${opts.delimiter}${wrap}`.replaceAll("'", "''");
  const cols = Array.from({ length: n }, (_, i) => `coalesce(CAST(c${i + 1} AS VARCHAR), '')`);
  await conn.run(
    `COPY (SELECT '${wrap}' || concat_ws('${join}', ${cols.join(', ')}) || '${wrap}'
           FROM (${select}) AS t(${Array.from({ length: n }, (_, i) => `c${i + 1}`).join(', ')}))
     TO ${sqlPath(body)} (FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER chr(31))`,
  );
  const out = fs.createWriteStream(file);
  out.write(`${opts.header.join(opts.delimiter)}\n`);
  await pipeline(fs.createReadStream(body), out);
  fs.rmSync(body);
}

const h = (salt: string, n: number, key = 'registrikood'): string => `(hash(${key}, '${salt}') % ${n})`;
const compact = (date: Date): string => isoDate(date).replaceAll('-', '');

/** Re-encodes a UTF-8 file as ISO-8859-1 (SCB's encoding), streamed. */
async function toLatin1(file: string): Promise<void> {
  const tmp = `${file}.utf8`;
  fs.renameSync(file, tmp);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  await pipeline(
    fs.createReadStream(tmp),
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        done(null, Buffer.from(decoder.decode(chunk, { stream: true }), 'latin1'));
      },
      flush(done) {
        done(null, Buffer.from(decoder.decode(), 'latin1'));
      },
    }),
    fs.createWriteStream(file),
  );
  fs.rmSync(tmp);
}

export const writeSeOfficial = writerOf([createSeTable, writeBolagsverket, writeScbJe, writeFdb, writeCfar]);

async function createSeTable({ conn }: WriterSteps): Promise<void> {
  // Sole traders have no organisation number: SCB and Bolagsverket list them under the owner's personal
  // number. The world has none, so one is made up per row (a valid Luhn digit; the ingest never keeps it).
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_se AS
    WITH n AS (
      SELECT *, row_number() OVER (ORDER BY registrikood, arinimi, asukoht, esmaregistreerimise_kpv) AS rn
      FROM w_companies
    ), p AS (
      SELECT *, strftime(DATE '1940-01-01' + CAST(rn % 20000 AS INTEGER), '%y%m%d')
        || lpad(CAST(rn // 20000 AS VARCHAR), 3, '0') AS p9 FROM n
    )
    SELECT *,
      CASE WHEN registrikood = '' THEN
        CASE WHEN substr(p9, 1, 2) < '40' THEN '20' ELSE '19' END || p9 || CAST((10 - list_sum(list_transform(range(1, 10),
          k -> (CAST(substr(p9, k, 1) AS INTEGER) * (2 - (k + 1) % 2)) // 10
             + (CAST(substr(p9, k, 1) AS INTEGER) * (2 - (k + 1) % 2)) % 10)) % 10) % 10 AS VARCHAR)
      ELSE '16' || registrikood END AS pe_org_nr,
      regexp_extract(asukoht, '^(.*), (\\d{3}) (\\d{2}) (.*)$', ['street', 'pc1', 'pc2', 'town']) AS a
    FROM p`);
}

async function writeBolagsverket({ conn, asOf, written, out }: WriterSteps): Promise<void> {
  // Bolagsverket: one row per organisation (and per extra name for some), every field quoted.
  const bv = out(SE_FILE_NAMES.bolagsverketMember);
  const names = `arinimi || '$${SE_NAME_TYPES.main}-ORGNAM$' || strftime(esmaregistreerimise_kpv, '%Y-%m-%d')`;
  const trade = (t: string) =>
    `${t} || '$${SE_NAME_TYPES.trade}-ORGNAM$' || strftime(esmaregistreerimise_kpv + 400, '%Y-%m-%d')`;
  const inline = `${h('inline', 2)} = 0`;
  await writeRaw(
    conn,
    `WITH base AS (
       SELECT *, CASE WHEN registrikood = '' THEN pe_org_nr || '$PERSON-IDORG' ELSE registrikood || '$ORGNR-IDORG' END AS ident
       FROM w_se
     )
     SELECT ident, CASE WHEN registrikood = '' THEN '1' ELSE '' END, 'SE-LAND',
       ${names} || CASE WHEN len(se_register.trade_names) > 0 AND ${inline}
         THEN '|' || array_to_string(list_transform(se_register.trade_names, t -> ${trade('t')}), '|') ELSE '' END AS names,
       -- Only AB-ORGFO is confirmed (7.1); the ingest takes the legal form from SCB's JurForm.
       CASE WHEN oiguslik_vorm IN ('49', '41', '42') THEN 'AB-ORGFO' ELSE '' END,
       CASE WHEN staatus = 'K' THEN strftime(least(esmaregistreerimise_kpv + 300 + ${h('avreg', 5000)}::INTEGER, DATE '${isoDate(asOf)}'), '%Y-%m-%d') ELSE '' END,
       CASE WHEN staatus = 'K' THEN source_status ELSE '' END,
       CASE WHEN staatus IN ('L', 'N') THEN '|' || source_status || '$' || strftime(DATE '${isoDate(asOf)}' - 30 - ${h('proc', 400)}::INTEGER, '%Y-%m-%d')
         WHEN staatus IN ('R', 'K') AND ${h('done', 40)} = 0 THEN '|KK-AVSLAVOMFO$2019-05-02'
         ELSE '' END,
       strftime(esmaregistreerimise_kpv, '%Y-%m-%d'),
       CASE WHEN ${h('desc', 50)} = 0 THEN 'Verksamhet: "' || coalesce(emtak[1].label, '') || '";' || chr(10) || 'samt därmed förenlig verksamhet'
         ELSE coalesce(emtak[1].label, '') END,
       -- The town as the world writes it: the ingest serves Bolagsverket's address with its own casing.
       coalesce(a.street, '') || '$$' || coalesce(a.town, '') || '$' || coalesce(a.pc1 || a.pc2, '') || '$SE-LAND'
     FROM base
     UNION ALL
     SELECT ident, '', 'SE-LAND', ${trade('t')}, '', '', '', '', strftime(esmaregistreerimise_kpv, '%Y-%m-%d'), '', ''
     FROM (SELECT *, unnest(se_register.trade_names) AS t FROM base WHERE NOT (${inline}))
     ORDER BY 1, 2`,
    bv,
    { header: BOLAGSVERKET_HEADER, delimiter: ';', wrap: '"' },
  );
  written.pop();
  await zipInPlace(bv, out(SE_FILE_NAMES.bolagsverket));
}

async function writeScbJe({ conn, outDir, asOf, out }: WriterSteps): Promise<void> {
  // SCB JE bulk file: ISO-8859-1, tab, 34 columns; names and addresses in capitals as SCB writes them.
  const je = path.join(outDir, SE_FILE_NAMES.scbMember(`${compact(asOf)}T055245`));
  await writeRaw(
    conn,
    `SELECT '1', '', '',
       CASE WHEN staatus IN ('L', 'N', 'R') THEN '1' WHEN staatus = 'K' THEN '9' ELSE source_status END,
       upper(a.street), '1', oiguslik_vorm, upper(arinimi),
       emtak[1].kood, emtak[2].kood, emtak[3].kood, emtak[4].kood, emtak[5].kood,
       pe_org_nr, a.pc1 || a.pc2, upper(a.town), strftime(se_register.activity_start_date, '%Y%m%d'),
       ${seReklamCode('marketing_optout', 'phone_optout', h('bare', 2))},
       ${Array.from({ length: 16 }, () => `'1'`).join(', ')}, ''
     FROM w_se ORDER BY pe_org_nr`,
    je,
    // The real header and rows end with a tab: an empty 35th field.
    { delimiter: '\t', header: [...SCB_JE_HEADER, ''] },
  );
  await toLatin1(je);
  await zipInPlace(je, out(SE_FILE_NAMES.scb));
}

async function writeFdb({ conn, asOf, out }: WriterSteps): Promise<void> {
  // The FDB JE extract, as the API returns it (JSON; labelled categories as code and text).
  const labelled = (code: string, label: string, field: string) =>
    `se_register.${field}.code AS "${code}", se_register.${field}.label AS "${label}"`;
  const bands = SE_EMPLOYEE_BANDS.map((b) => `WHEN ${b.code} THEN '${b.label.replaceAll("'", "''")}'`).join(
    ' ',
  );
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_fdb AS
    SELECT (row_number() OVER (ORDER BY "${FDB_KEYS.orgnr}") - 1) // ${FDB_PAGE_ROWS} AS page, * FROM (
    SELECT pe_org_nr AS "${FDB_KEYS.orgnr}", arinimi AS "Företagsnamn",
       CAST(se_employees_band AS VARCHAR) AS "${FDB_KEYS.sizeCode}", CASE se_employees_band ${bands} END AS "${FDB_KEYS.sizeLabel}",
       a.street AS "${FDB_KEYS.postAddress}", a.pc1 || ' ' || a.pc2 AS "${FDB_KEYS.postCode}", a.town AS "${FDB_KEYS.postTown}",
       ehak_kood AS "${FDB_KEYS.kommunCode}", ehak_nimetus AS "${FDB_KEYS.kommun}",
       substr(aadress_text, length(asukoht) + 3) AS "${FDB_KEYS.lan}",
       oiguslik_vorm AS "Juridisk form, kod", oiguslik_vorm_tekstina AS "Juridisk form",
       CASE WHEN staatus = 'R' THEN '1' ELSE '0' END AS "Företagsstatus, kod",
       CASE WHEN vat_active THEN '1' ELSE '0' END AS "${FDB_KEYS.vatCode}",
       ${labelled(FDB_KEYS.turnoverCode, FDB_KEYS.turnoverLabel, 'turnover_class')},
       ${labelled(FDB_KEYS.smeCode, FDB_KEYS.smeLabel, 'sme_class')},
       ${labelled(FDB_KEYS.ownerCode, FDB_KEYS.ownerLabel, 'owner_category')},
       ${labelled(FDB_KEYS.exportCode, FDB_KEYS.exportLabel, 'export_import')},
       ${labelled(FDB_KEYS.listingCode, FDB_KEYS.listingLabel, 'listing')}
     FROM w_se)`);
  // One file per answer of at most 2,000 rows, every value a string, as the harvest stores them.
  const pages = Number((await conn.runAndReadAll('SELECT count(DISTINCT page) FROM w_fdb')).getRows()[0]![0]);
  for (let p = 0; p < pages; p++) {
    await writeJsonArray(
      conn,
      `SELECT * EXCLUDE (page) FROM w_fdb WHERE page = ${p} ORDER BY "${FDB_KEYS.orgnr}"`,
      out(SE_FILE_NAMES.fdb(compact(asOf), p + 1)),
    );
  }
  await conn.run('DROP TABLE w_fdb');
}

async function writeCfar({ conn, asOf, out }: WriterSteps): Promise<void> {
  // CFAR workplaces: ISO-8859-1, tab, postcodes without their space.
  const cfar = out(SE_FILE_NAMES.cfar(compact(asOf)));
  await writeCsv(
    conn,
    `SELECT cfar_nr, '16' || registrikood, name, CASE WHEN is_main THEN '1' ELSE '0' END,
       CASE WHEN is_active THEN '1' ELSE '9' END,
       visit_address, replace(visit_postcode, ' ', ''), visit_town, postal_address, replace(postal_code, ' ', ''),
       postal_town, kommun_code, kommun_name,
       activity_codes[1], activity_codes[2], activity_codes[3], activity_codes[4], activity_codes[5],
       employees_band_code, phone, email, CAST(sweref99tm_n AS BIGINT), CAST(sweref99tm_e AS BIGINT),
       ${seReklamCode('marketing_optout', 'phone_optout', h('bare', 2, 'cfar_nr'))}
     FROM w_workplaces ORDER BY registrikood, cfar_nr`,
    cfar,
    { delimiter: '\t', header: CFAR_HEADER },
  );
  await toLatin1(cfar);
}

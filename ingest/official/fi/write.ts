import fs from 'node:fs';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createActivityLeaves, createNaceCorrespondence } from '../activity-codes.ts';
import { pickSql, writeJsonArray } from '../write-helpers.ts';
import type { WriterContext } from '../writer-context.ts';
import { writeZip } from '../zip.ts';
import { FI_FILE_NAMES, FI_VAT_REGISTER } from './files.ts';

/*
 * Finland's official file from a canonical snapshot: PRH's v3 bulk, one JSON array on a single line in a
 * ZIP, with the quirks the reference shows or implies: former names and company forms with an end date, an
 * auxiliary name, a postal address listed before the street address, post offices in Finnish and Swedish
 * with upper-case city names, five-digit TOL codes (some still TOIMI3, i.e. TOL 2008 / NACE Rev. 2), ended
 * VAT entries and ended bankruptcies, the top-level status "2" on every record whatever its state.
 */

const h = (salt: string, n: number): string => pickSql('registrikood', salt, n);
const iso = (expr: string): string => `strftime(${expr}, '%Y-%m-%d')`;
/** "Kuusitie 96, 67787 Ulvila" → street, house number, postcode, town. */
const ADDRESS = `'^(.*) (\\S+), (\\d{5}) (.*)$'`;

/** Drops the line feeds and tabs DuckDB puts between array elements (inside JSON strings they are escaped). */
class OneLine extends Transform {
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const out = Buffer.allocUnsafe(chunk.length);
    let n = 0;
    for (const b of chunk) if (b !== 0x0a && b !== 0x09) out[n++] = b;
    done(null, out.subarray(0, n));
  }
}

export async function writeFiOfficial(ctx: WriterContext): Promise<string[]> {
  const { conn, outDir, asOf } = ctx;
  await createActivityLeaves(conn, ctx.reference);
  await createNaceCorrespondence(conn, false);
  // A NACE Rev. 2 class the ingest maps back onto exactly this Rev. 2.1 class (for TOIMI3 records).
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE w_old_nace AS SELECT kood, min(old) AS old FROM nace_rev2 GROUP BY kood`,
  );
  const reg = iso('esmaregistreerimise_kpv');
  const a = (part: number) => `regexp_extract(asukoht, ${ADDRESS}, ${part})`;
  const offices = `[{city: upper(${a(4)}), languageCode: '1', municipalityCode: ehak_kood},
    {city: upper(${a(4)}), languageCode: '2', municipalityCode: ehak_kood}]`;
  const lines = path.join(outDir, `${FI_FILE_NAMES.member}.lines`);
  await writeJsonArray(
    conn,
    `SELECT
       {value: registrikood, registrationDate: ${reg}, "source": '3'} AS businessId,
       CASE WHEN ${h('euid', 3)} = 0 THEN {value: 'FIFPRO.' || registrikood, "source": '1'} END AS euId,
       [{name: arinimi, "type": '1', registrationDate: ${iso(`esmaregistreerimise_kpv + CASE WHEN ${h('oldname', 8)} = 0 THEN 400 ELSE 0 END`)},
         endDate: NULL::VARCHAR, version: 1, "source": '1'}]
         || CASE WHEN ${h('oldname', 8)} = 0 THEN [{name: 'Entinen ' || arinimi, "type": '1', registrationDate: ${reg},
           endDate: ${iso('esmaregistreerimise_kpv + 400')}, version: 2, "source": '1'}] ELSE [] END
         || CASE WHEN ${h('aux', 20)} = 0 THEN [{name: arinimi || ' Service', "type": '3', registrationDate: ${reg},
           endDate: NULL::VARCHAR, version: 1, "source": '1'}] ELSE [] END AS names,
       [{"type": oiguslik_vorm, descriptions: [{languageCode: '1', description: oiguslik_vorm_tekstina}],
         registrationDate: ${reg}, endDate: NULL::VARCHAR, version: 1, "source": '1'}]
         || CASE WHEN ${h('oldform', 15)} = 0 AND oiguslik_vorm <> '13' THEN [{"type": '13',
           descriptions: [{languageCode: '1', description: 'Kommandiittiyhtiö'}], registrationDate: '1990-01-01',
           endDate: ${reg}, version: 2, "source": '1'}] ELSE [] END AS companyForms,
       CASE WHEN asukoht IS NULL THEN []
         ELSE CASE WHEN ${h('postal', 4)} = 0 THEN [{"type": 2, street: NULL::VARCHAR, postCode: ${a(3)},
           buildingNumber: NULL::VARCHAR, entrance: NULL::VARCHAR, apartmentNumber: NULL::VARCHAR, co: NULL::VARCHAR,
           postOfficeBox: (100 + ${h('pl', 800)})::VARCHAR, postOffices: ${offices}, registrationDate: ${reg}, "source": '0'}]
           ELSE [] END
         || [{"type": 1, street: ${a(1)}, postCode: ${a(3)}, buildingNumber: ${a(2)}, entrance: NULL::VARCHAR,
           apartmentNumber: NULL::VARCHAR, co: NULL::VARCHAR, postOfficeBox: NULL::VARCHAR, postOffices: ${offices},
           registrationDate: ${reg}, "source": '0'}] END AS addresses,
       CASE WHEN len(emtak) > 0 THEN {
         "type": CASE WHEN o.old IS NOT NULL AND ${h('toimi3', 5)} = 0 THEN o.old ELSE emtak[1].kood END || '0',
         typeCodeSet: CASE WHEN o.old IS NOT NULL AND ${h('toimi3', 5)} = 0 THEN 'TOIMI3' ELSE 'TOIMI4' END,
         descriptions: [{languageCode: '3', description: emtak[1].label}], registrationDate: ${reg}, "source": '2'} END
         AS mainBusinessLine,
       CASE WHEN staatus IN ('L', 'N', 'T') THEN [{"type": source_status, registrationDate: '2026-03-01',
           endDate: NULL::VARCHAR, "source": '1'}]
         WHEN staatus = 'K' AND ${h('oldkonk', 6)} = 0 THEN [{"type": 'KONK', registrationDate: '2019-03-01',
           endDate: '2021-05-01', "source": '1'}]
         ELSE [] END AS companySituations,
       CASE WHEN vat_active THEN [{"type": '80', register: '${FI_VAT_REGISTER}', authority: '1',
           descriptions: [{languageCode: '1', description: 'Liiketoiminnasta arvonlisäverovelvollinen'}],
           registrationDate: ${reg}, endDate: NULL::VARCHAR}]
         WHEN ${h('oldvat', 5)} = 0 THEN [{"type": '80', register: '${FI_VAT_REGISTER}', authority: '1',
           descriptions: [{languageCode: '1', description: 'Liiketoiminnasta arvonlisäverovelvollinen'}],
           registrationDate: ${reg}, endDate: ${iso('esmaregistreerimise_kpv + 700')}}]
         ELSE [] END AS registeredEntries,
       CASE WHEN len(list_filter(contacts, c -> c.liik = 'WWW' AND c."source" IS NULL)) > 0 THEN {
         url: list_filter(contacts, c -> c.liik = 'WWW' AND c."source" IS NULL)[1].sisu, registrationDate: ${reg},
         "source": '1'} END AS website,
       CASE WHEN staatus = 'K' THEN '4' ELSE '1' END AS tradeRegisterStatus,
       '2' AS status, ${reg} AS registrationDate,
       CASE WHEN staatus = 'K' THEN '2024-12-31' END AS endDate,
       '${asOf.toISOString().slice(0, 10)}T06:00:00' AS lastModified
     FROM w_companies LEFT JOIN w_old_nace o ON o.kood = emtak[1].kood
     ORDER BY registrikood`,
    lines,
  );
  // PRH's array is a single line of about 1.4 GB: the reader must stream it, not split it into lines.
  const json = path.join(outDir, FI_FILE_NAMES.member);
  await pipeline(fs.createReadStream(lines), new OneLine(), fs.createWriteStream(json));
  fs.rmSync(lines);
  const zip = path.join(outDir, FI_FILE_NAMES.allCompanies);
  await writeZip(zip, json, FI_FILE_NAMES.member);
  fs.rmSync(json);
  return [zip];
}

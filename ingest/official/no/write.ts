import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { sortedList } from '../../../src/engine/batch-sql.ts';
import { createActivityLeaves, createLocationLeaves } from '../activity-codes.ts';
import { sqlPath } from '../../pipeline/sql.ts';
import { pickSql, writeCsv, writeJsonArray, writerOf, type WriterSteps } from '../write-helpers.ts';
import { NO_ENHETER_CSV_HEADER, NO_FILE_NAMES } from './files.ts';
import { createKommuneTable } from './kommune.ts';
import { sn2025CodeSql } from './sn2025.ts';

/*
 * Norway's official files from a canonical snapshot: gzipped JSON arrays as BRREG ships them, with the
 * quirks the reference lists or implies: SN2025 activity codes written with five digits, kommunenummer of
 * earlier structures on some business addresses, the CSV download beside the JSON one, addresses as
 * arrays of lines with upper-case poststed and kommune, booleans as JSON booleans, a bankrupt estate that is
 * also flagged underAvvikling, a zero employee count beside harRegistrertAntallAnsatte false, roles grouped by
 * rollegruppe with resigned members and auditors (companies) to leave out, closed and orphaned sub-units,
 * group (KONSERN) and older-year accounts beside the latest company accounts.
 */

const h = (salt: string, n: number): string => pickSql('registrikood', salt, n);
const iso = (expr: string): string => `strftime(${expr}, '%Y-%m-%d')`;
/** "Sjøgata 80, 1036 Sunnfjord" → street, postcode, town. */
const ADDRESS = `'^(.*), (\\d{4}) (.*)$'`;

export const writeNoOfficial = writerOf([
  prepareNo,
  writeEnheter,
  writeUnderenheter,
  writeRoles,
  writeRegnskap,
]);

async function prepareNo({ conn, reference }: WriterSteps): Promise<void> {
  await createActivityLeaves(conn, reference);
  // A unit whose business address still carries a kommunenummer of an earlier structure (the ingest maps
  // it through SSB's change table): the lowest old code that leads to exactly this kommune.
  await createLocationLeaves(conn, reference);
  await createKommuneTable(conn);
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_old_kommune AS
    SELECT kood, min(code) AS old FROM no_kommune WHERE code <> kood GROUP BY kood`);
}

async function writeEnheter({ conn, outDir, out }: WriterSteps): Promise<void> {
  const contact = (liik: string) =>
    `list_filter(contacts, c -> c."source" IS NULL AND c.liik = '${liik}')[1].sisu`;
  const address = (part: number) => `regexp_extract(asukoht, ${ADDRESS}, ${part})`;
  const place = `{land: 'Norge', landkode: 'NO', postnummer: ${address(2)}, poststed: upper(${address(3)}),
      adresse: [${address(1)}], kommune: upper(ehak_nimetus),
      kommunenummer: CASE WHEN ${h('oldkommune', 12)} = 0 THEN coalesce(ok.old, ehak_kood) ELSE ehak_kood END}`;
  await writeJsonArray(
    conn,
    `WITH emp AS (SELECT registrikood, employees, as_of FROM w_history WHERE granularity = 'snapshot'),
     acts AS (
       SELECT a.registrikood, list({kode: ${sn2025CodeSql('a.e.kood')}, beskrivelse: a.e.label} ORDER BY a.ord) AS k
       FROM (SELECT registrikood, generate_subscripts(emtak, 1) AS ord, unnest(emtak) AS e FROM w_companies) a
       WHERE a.ord <= 3 GROUP BY a.registrikood
     )
     SELECT registrikood AS organisasjonsnummer, arinimi AS navn,
       {kode: oiguslik_vorm, beskrivelse: oiguslik_vorm_tekstina} AS organisasjonsform,
       ${contact('WWW')} AS hjemmeside,
       CASE WHEN asukoht IS NOT NULL AND ${h('postboks', 4)} = 0 THEN {land: 'Norge', landkode: 'NO',
         postnummer: ${address(2)}, poststed: upper(${address(3)}),
         adresse: ['Postboks ' || (1 + ${h('pb', 900)})::VARCHAR], kommune: upper(ehak_nimetus), kommunenummer: ehak_kood} END
         AS postadresse,
       ${contact('EMAIL')} AS epostadresse, ${contact('TEL')} AS telefon, ${contact('MOB')} AS mobil,
       ${iso('esmaregistreerimise_kpv')} AS registreringsdatoEnhetsregisteret,
       coalesce(vat_active, false) AS registrertIMvaregisteret,
       acts.k[1] AS naeringskode1, acts.k[2] AS naeringskode2, acts.k[3] AS naeringskode3,
       -- BRREG's flag means "has registered employees": a count of 0 is written false beside 0, as BRREG does.
       coalesce(emp.employees > 0, false) AS harRegistrertAntallAnsatte,
       CAST(emp.employees AS BIGINT) AS antallAnsatte,
       ${iso('emp.as_of')} AS registreringsdatoAntallAnsatteEnhetsregisteret,
       ${iso('emp.as_of - 3')} AS registreringsdatoantallansatteNAVAaregisteret,
       CASE WHEN asukoht IS NOT NULL THEN ${place} END AS forretningsadresse,
       ${iso('esmaregistreerimise_kpv - 20')} AS stiftelsesdato,
       oiguslik_vorm IN ('AS', 'ASA', 'ANS', 'DA', 'KS', 'NUF', 'SA', 'BA', 'ENK') AS registrertIForetaksregisteret,
       source_status IS NOT DISTINCT FROM 'konkurs' AS konkurs,
       CASE WHEN source_status = 'konkurs' THEN ${iso(`DATE '2026-10-01' - ${h('kd', 600)}::INTEGER`)} END AS konkursdato,
       source_status IS NOT DISTINCT FROM 'underAvvikling'
         OR (source_status IS NOT DISTINCT FROM 'konkurs' AND ${h('estate', 2)} = 0) AS underAvvikling,
       source_status IS NOT DISTINCT FROM 'underTvangsavviklingEllerTvangsopplosning'
         AS underTvangsavviklingEllerTvangsopplosning,
       CASE WHEN source_status = 'underRekonstruksjonsforhandlingDato'
         THEN ${iso(`DATE '2026-10-01' - ${h('rk', 300)}::INTEGER`)} END AS underRekonstruksjonsforhandlingDato,
       'Bokmål' AS maalform,
       CASE WHEN ${h('akt', 3)} = 0 THEN ['Drift av ' || lower(arinimi) || ',', 'og det som står i forbindelse' || chr(10) || 'med dette.'] END
         AS aktivitet,
       CASE WHEN kapital_amount IS NOT NULL THEN {valuta: kapital_currency, belop: kapital_amount,
         antallAksjer: CAST(greatest(1, kapital_amount / 100) AS BIGINT), innfortDato: ${iso('esmaregistreerimise_kpv')},
         "type": 'Aksjekapital', bundet: false, innbetalt: kapital_amount, fulltInnbetalt: true} END AS kapital
     FROM w_companies LEFT JOIN emp USING (registrikood) LEFT JOIN acts USING (registrikood)
       LEFT JOIN w_old_kommune ok ON ok.kood = ehak_kood
     ORDER BY registrikood`,
    out(NO_FILE_NAMES.enheter),
    { gzip: true },
  );

  await writeUnitsCsv(conn, path.join(outDir, NO_FILE_NAMES.enheter), out(NO_FILE_NAMES.enheterCsv));
}

async function writeUnderenheter({ conn, out }: WriterSteps): Promise<void> {
  // Sub-units: one per sub-unit phone of the world (source no_subunit), plus a sub-unit without contacts
  // for other employers, a closed one whose phone must be skipped, and one whose parent is not a unit.
  await writeJsonArray(
    conn,
    `WITH sub AS (
       SELECT registrikood, k, c FROM (
         SELECT registrikood, generate_subscripts(list_filter(contacts, x -> x."source" = 'no_subunit'), 1) AS k,
           unnest(list_filter(contacts, x -> x."source" = 'no_subunit')) AS c FROM w_companies)
     ), units AS (
       SELECT registrikood AS parent, k, c.liik AS liik, c.sisu AS sisu, NULL::VARCHAR AS closed FROM sub
       UNION ALL
       SELECT registrikood, 1, NULL, NULL, NULL FROM w_companies c
       WHERE last_quarter_employees_number IS NOT NULL
         AND NOT list_contains(list_transform(contacts, x -> x."source"), 'no_subunit')
       UNION ALL
       SELECT registrikood, 9, 'TEL', '+47 22 00 00 00', '2019-06-30' FROM w_companies
       WHERE last_quarter_employees_number IS NOT NULL AND ${h('closedsub', 15)} = 0
       UNION ALL
       SELECT * FROM (VALUES ('999999998', 1, 'TEL', '+47 22 11 11 11', NULL)) v
     ), numbered AS (
       SELECT *, (970000000 + hash(parent, 'sub') % 9000000 * 3 + k)::VARCHAR AS orgnr FROM units
     )
     SELECT orgnr AS organisasjonsnummer, 'Avdeling ' || k::VARCHAR AS navn,
       {kode: 'BEDR', beskrivelse: 'Underenhet til næringsdrivende og offentlig forvaltning'} AS organisasjonsform,
       parent AS overordnetEnhet,
       CASE WHEN liik = 'TEL' THEN sisu END AS telefon, CASE WHEN liik = 'MOB' THEN sisu END AS mobil,
       CASE WHEN liik = 'EMAIL' THEN sisu END AS epostadresse, CASE WHEN liik = 'WWW' THEN sisu END AS hjemmeside,
       closed AS nedleggelsesdato
     FROM numbered ORDER BY orgnr`,
    out(NO_FILE_NAMES.underenheter),
    { gzip: true },
  );
}

async function writeRoles({ conn, out }: WriterSteps): Promise<void> {
  // Roles, one entry per unit with its role groups (Styre, Daglig leder, Innehaver): first names and
  // surnames apart, a birth date the ingest must not read, resigned board members and auditors to skip.
  // Lists are sorted after aggregation (sortedList): an ordered list() ran NO at scale 1 out of 6 GB.
  await writeJsonArray(
    conn,
    `WITH p AS (
       SELECT registrikood, generate_subscripts(people, 1) AS k, unnest(people) AS p FROM w_companies
     ), r AS (
       SELECT registrikood, k, p.roll AS kode, p.roll_tekstina AS beskrivelse, p.isiku_tyyp = 'F' AS person,
         CASE WHEN p.isiku_tyyp = 'F' AND strpos(p.nimi, ' ') > 0 THEN split_part(p.nimi, ' ', 1) END AS fornavn,
         CASE WHEN p.isiku_tyyp = 'F' AND strpos(p.nimi, ' ') > 0 THEN substr(p.nimi, strpos(p.nimi, ' ') + 1)
           ELSE p.nimi END AS etternavn,
         false AS fratraadt,
         CASE p.roll WHEN 'DAGL' THEN 'DAGL' WHEN 'INNH' THEN 'INNH' ELSE 'STYR' END AS gruppe
       FROM p
       UNION ALL
       SELECT registrikood, 100, 'MEDL', 'Styremedlem', true, 'Tidligere', 'Styremedlem', true, 'STYR'
       FROM w_companies WHERE len(people) > 0 AND ${h('fratraadt', 10)} = 0
       UNION ALL
       SELECT registrikood, 200, 'REVI', 'Revisor', false, NULL, 'REVISJON ØST AS', false, 'REVI'
       FROM w_companies WHERE annual_report_year IS NOT NULL AND ${h('revi', 3)} = 0
     ), g AS (
       SELECT registrikood, gruppe, min(k) AS first_k, ${sortedList(
         `{
         "type": {kode: kode, beskrivelse: beskrivelse},
         person: CASE WHEN person THEN {fodselsdato: ${iso(`DATE '1960-01-01' + (hash(registrikood, k) % 15000)::INTEGER`)},
           navn: {fornavn: fornavn, mellomnavn: NULL::VARCHAR, etternavn: etternavn}, erDoed: false} END,
         enhet: CASE WHEN NOT person THEN {organisasjonsnummer: '9' || lpad((hash(registrikood, k) % 99999999)::VARCHAR, 8, '0'),
           navn: [etternavn]} END,
         fratraadt: fratraadt, rekkefolge: k}`,
         ['k'],
       )} AS roller
       FROM r GROUP BY registrikood, gruppe
     )
     SELECT registrikood AS organisasjonsnummer, ${sortedList(
       `{
       "type": {kode: gruppe, beskrivelse: CASE gruppe WHEN 'STYR' THEN 'Styre' WHEN 'DAGL' THEN 'Daglig leder/ adm.direktør'
         WHEN 'INNH' THEN 'Innehaver' ELSE 'Revisor' END},
       sistEndret: '2026-10-01', roller: roller}`,
       ['first_k'],
     )} AS rollegrupper
     FROM g GROUP BY registrikood ORDER BY registrikood`,
    out(NO_FILE_NAMES.roller),
    { gzip: true },
  );
}

async function writeRegnskap({ conn, out }: WriterSteps): Promise<void> {
  // Regnskapsregisteret: the company accounts of the latest year, some also the year before (older
  // figures) and a group account (KONSERN) the ingest must skip.
  const money = (expr: string) => `CASE WHEN f = 1 THEN ${expr} ELSE round(${expr} * f) END`;
  await writeJsonArray(
    conn,
    `WITH latest AS (
       SELECT registrikood, oiguslik_vorm, annual_report_year AS yr, 'SELSKAP' AS kind, 1.0 AS f,
         annual_revenue, annual_net_profit, annual_equity, annual_total_assets
       FROM w_companies WHERE annual_report_year IS NOT NULL
     ), acc AS (
       SELECT * FROM latest
       UNION ALL SELECT * REPLACE (yr - 1 AS yr, 0.9 AS f) FROM latest WHERE ${h('prevacc', 5)} = 0
       UNION ALL SELECT * REPLACE ('KONSERN' AS kind, 1.7 AS f) FROM latest WHERE ${h('konsern', 25)} = 0
     )
     SELECT 3000000 + row_number() OVER (ORDER BY registrikood, yr, kind) AS id,
       (yr + 1)::VARCHAR || lpad((hash(registrikood, yr, kind) % 10000000)::VARCHAR, 8, '0') AS journalnr,
       kind AS regnskapstype,
       {organisasjonsnummer: registrikood, organisasjonsform: oiguslik_vorm, morselskap: kind = 'KONSERN'} AS virksomhet,
       {fraDato: yr::VARCHAR || '-01-01', tilDato: yr::VARCHAR || '-12-31'} AS regnskapsperiode,
       'NOK' AS valuta, false AS avviklingsregnskap, 'store' AS oppstillingsplan,
       {sumEgenkapitalGjeld: ${money('annual_total_assets')},
        egenkapital: {sumEgenkapital: ${money('annual_equity')}},
        gjeldOversikt: {sumGjeld: ${money('annual_total_assets - annual_equity')}}} AS egenkapitalGjeld,
       {sumEiendeler: ${money('annual_total_assets')}} AS eiendeler,
       {ordinaertResultatFoerSkattekostnad: ${money('annual_net_profit * 1.28')},
        aarsresultat: ${money('annual_net_profit')},
        driftsresultat: {driftsresultat: ${money('annual_net_profit * 1.3')},
          driftsinntekter: {sumDriftsinntekter: ${money('annual_revenue')}},
          driftskostnad: {sumDriftskostnad: ${money('annual_revenue - annual_net_profit * 1.3')}}}} AS resultatregnskapResultat
     FROM acc ORDER BY registrikood, yr DESC, kind DESC`,
    out(NO_FILE_NAMES.regnskap),
  );
}

/** A postal or business address of a unit. */
const ADDRESS_TYPE = `STRUCT(land VARCHAR, landkode VARCHAR, postnummer VARCHAR, poststed VARCHAR, adresse VARCHAR[],
    kommune VARCHAR, kommunenummer VARCHAR)`;
/** A coded value: organisasjonsform and the three næringskoder. */
const CODED_TYPE = 'STRUCT(kode VARCHAR, beskrivelse VARCHAR)';

/** The keys of the written enheter JSON with their types, for reading it back into the CSV form. */
const WRITTEN_UNIT_KEYS: Record<string, string> = {
  organisasjonsnummer: 'VARCHAR',
  navn: 'VARCHAR',
  organisasjonsform: CODED_TYPE,
  hjemmeside: 'VARCHAR',
  postadresse: ADDRESS_TYPE,
  epostadresse: 'VARCHAR',
  telefon: 'VARCHAR',
  mobil: 'VARCHAR',
  registreringsdatoEnhetsregisteret: 'VARCHAR',
  registrertIMvaregisteret: 'BOOLEAN',
  naeringskode1: CODED_TYPE,
  naeringskode2: CODED_TYPE,
  naeringskode3: CODED_TYPE,
  harRegistrertAntallAnsatte: 'BOOLEAN',
  antallAnsatte: 'BIGINT',
  registreringsdatoAntallAnsatteEnhetsregisteret: 'VARCHAR',
  registreringsdatoantallansatteNAVAaregisteret: 'VARCHAR',
  forretningsadresse: ADDRESS_TYPE,
  stiftelsesdato: 'VARCHAR',
  registrertIForetaksregisteret: 'BOOLEAN',
  konkurs: 'BOOLEAN',
  konkursdato: 'VARCHAR',
  underAvvikling: 'BOOLEAN',
  underTvangsavviklingEllerTvangsopplosning: 'BOOLEAN',
  underRekonstruksjonsforhandlingDato: 'VARCHAR',
  maalform: 'VARCHAR',
  aktivitet: 'VARCHAR[]',
  kapital: `STRUCT(valuta VARCHAR, belop DOUBLE, antallAksjer BIGINT, innfortDato VARCHAR, "type" VARCHAR,
    bundet BOOLEAN, innbetalt DOUBLE, fulltInnbetalt BOOLEAN)`,
};

/** Header cells the CSV spells differently from the JSON key. */
const CSV_SPELLING: Record<string, string> = {
  registrertIMvaRegisteret: 'registrertIMvaregisteret',
  registreringsdatoenhetsregisteret: 'registreringsdatoEnhetsregisteret',
};

/**
 * BRREG's CSV download of the same units (`/enheter/lastned/csv`), made from the JSON just written so both
 * forms carry the same register: the header of the real file (dotted paths, its own spellings), every
 * value double-quoted with empty cells `""`, booleans "true"/"false", list values (address lines,
 * aktivitet) one per line inside their quoted cell, gzipped.
 */
async function writeUnitsCsv(conn: DuckDBConnection, json: string, file: string): Promise<void> {
  const columns = `{${Object.entries(WRITTEN_UNIT_KEYS)
    .map(([k, t]) => `'${k}': '${t.replaceAll("'", "''")}'`)
    .join(', ')}}`;
  const cell = (header: string): string => {
    const [key, ...rest] = (CSV_SPELLING[header] ?? header).split('.');
    const type = WRITTEN_UNIT_KEYS[key!];
    if (type === undefined) return "''";
    const sub = rest[0];
    const leafType =
      sub === undefined ? type : (new RegExp(`"?${sub}"? ([A-Z]+(\\[\\])?)`).exec(type)?.[1] ?? 'VARCHAR');
    const expr = sub === undefined ? `j."${key}"` : `j."${key}"."${sub}"`;
    if (leafType.endsWith('[]')) return `coalesce(array_to_string(${expr}, chr(10)), '')`;
    return `coalesce(CAST(${expr} AS VARCHAR), '')`;
  };
  const body = `${file.replace(/\.gz$/, '')}`;
  await writeCsv(
    conn,
    `SELECT ${NO_ENHETER_CSV_HEADER.map(cell).join(', ')}
     FROM read_json(${sqlPath(json)}, format = 'array', columns = ${columns}) j`,
    body,
    { delimiter: ',', header: NO_ENHETER_CSV_HEADER, quoteHeader: true, forceQuote: NO_ENHETER_CSV_HEADER },
  );
  await pipeline(fs.createReadStream(body), zlib.createGzip({ level: 1 }), fs.createWriteStream(file));
  fs.rmSync(body);
}

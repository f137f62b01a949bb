import type { StageResult } from '../../pipeline/publish.ts';
import { createActivityLeaves, createLocationLeaves, createNaceCorrespondence } from '../activity-codes.ts';
import { loadJson } from '../read-json.ts';
import { countNulled, keyRows } from '../rows.ts';
import { contractCompaniesSql, createEmptyHistory, searchNameSql } from '../stage-sql.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import { FI_FILES, FI_LANGUAGE, FI_STATUS, FI_VAT_REGISTER } from './files.ts';

const DESCRIPTIONS = 'STRUCT(languageCode VARCHAR, description VARCHAR)[]';
/** Entries still in force: PRH keeps ended names, forms, situations and registrations with an endDate. */
const current = (list: string) => `list_filter(${list}, x -> nullif(trim(x.endDate), '') IS NULL)`;

async function stageFinland(ctx: StageContext): Promise<StageResult> {
  const { conn, reference, country, report, sources } = ctx;
  await createActivityLeaves(conn, reference);
  await createLocationLeaves(conn, reference);
  await createNaceCorrespondence(conn, false);

  const file = sources.one('companies')!;
  const display = sources.displayName(file);
  // One JSON array on a single line (~1.4 GB): DuckDB's reader streams it element by element.
  await report.stage(
    country,
    `read ${display}`,
    () =>
      loadJson(
        conn,
        {
          country,
          file,
          display,
          table: 'raw_ytj',
          columns: [
            ['businessId', 'STRUCT(value VARCHAR, registrationDate VARCHAR)'],
            ['names', 'STRUCT(name VARCHAR, "type" VARCHAR, registrationDate VARCHAR, endDate VARCHAR)[]'],
            ['companyForms', `STRUCT("type" VARCHAR, descriptions ${DESCRIPTIONS}, endDate VARCHAR)[]`],
            [
              'addresses',
              `STRUCT("type" VARCHAR, street VARCHAR, postCode VARCHAR, buildingNumber VARCHAR, entrance VARCHAR,
                apartmentNumber VARCHAR, apartmentIdSuffix VARCHAR, postOfficeBox VARCHAR,
                postOffices STRUCT(city VARCHAR, languageCode VARCHAR, municipalityCode VARCHAR)[], endDate VARCHAR)[]`,
            ],
            ['mainBusinessLine', 'STRUCT("type" VARCHAR, typeCodeSet VARCHAR)'],
            ['companySituations', 'STRUCT("type" VARCHAR, endDate VARCHAR)[]'],
            ['registeredEntries', 'STRUCT("type" VARCHAR, register VARCHAR, endDate VARCHAR)[]'],
            ['website', 'STRUCT(url VARCHAR)'],
            ['tradeRegisterStatus', 'VARCHAR'],
            ['registrationDate', 'VARCHAR'],
            ['endDate', 'VARCHAR'],
          ],
        },
        report,
      ),
    (r) => r.rowsRead,
  );
  await keyRows(conn, {
    country,
    from: 'raw_ytj',
    to: 'ingest_register',
    codeSql: 'businessId.value',
    file: display,
    report,
    checkRule: true,
  });

  await report.stage(country, 'build companies', async () => {
    // The current official name (type 1), the current form, the street address (type 1) before the postal one.
    await conn.run(`CREATE OR REPLACE TEMP TABLE fi_rows AS
      SELECT code, tradeRegisterStatus, endDate, website, registeredEntries, mainBusinessLine,
        coalesce(TRY_CAST(businessId.registrationDate AS DATE), TRY_CAST(registrationDate AS DATE)) AS registered,
        list_sort(list_transform(list_filter(${current('names')}, x -> trim(x."type") = '1'),
          x -> [coalesce(x.registrationDate, ''), x.name]), 'DESC')[1][2] AS name,
        ${current('companyForms')}[1] AS form,
        list_sort(list_transform(${current('addresses')}, x -> {k: CASE trim(x."type") WHEN '1' THEN 1 ELSE 2 END, a: x}))[1].a AS addr,
        list_transform(${current('companySituations')}, x -> trim(x."type")) AS situations
      FROM ingest_register`);
    await conn.run('DROP TABLE ingest_register');
    await conn.run(`CREATE OR REPLACE TEMP TABLE fi_place AS
      SELECT code, addr, list_filter(addr.postOffices, p -> p.languageCode = '${FI_LANGUAGE.fi}')[1] AS office
      FROM fi_rows`);
    await countNulled(conn, {
      country,
      file: display,
      report,
      reason: 'municipalityCode not a kunta of the reference (ehak_kood left empty)',
      sql: `SELECT count(*) AS n, any_value(office.municipalityCode) AS example FROM fi_place p
            WHERE nullif(trim(office.municipalityCode), '') IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM location_leaves l WHERE l.kood = trim(p.office.municipalityCode))`,
    });
    // TOL: five digits, the first four the NACE class. TOIMI4 is TOL 2025 (Rev. 2.1); TOIMI3 is TOL 2008
    // (Rev. 2) and mapped; 00000 means unknown.
    await conn.run(`CREATE OR REPLACE TEMP TABLE fi_acts AS
      SELECT r.code, r.mainBusinessLine."type" AS raw,
        CASE WHEN upper(trim(r.mainBusinessLine.typeCodeSet)) = 'TOIMI3' THEN m.kood ELSE coalesce(l.kood, m.kood) END AS kood
      FROM fi_rows r
        LEFT JOIN activity_leaves l ON l.kood = left(trim(r.mainBusinessLine."type"), 4)
        LEFT JOIN nace_rev2 m ON m.old = left(trim(r.mainBusinessLine."type"), 4)
      WHERE nullif(trim(r.mainBusinessLine."type"), '') IS NOT NULL`);
    await countNulled(conn, {
      country,
      file: display,
      report,
      reason: 'TOL code not a NACE Rev. 2.1 class nor mapped from Rev. 2 (activity left out)',
      sql: `SELECT count(*) AS n, any_value(raw) AS example FROM fi_acts WHERE kood IS NULL`,
    });

    const s = FI_STATUS;
    const ceased = `(trim(r.tradeRegisterStatus) = '${s.ceased.tradeRegisterStatus}' OR nullif(trim(r.endDate), '') IS NOT NULL)`;
    const situation = (pick: (x: (typeof s.situations)[number]) => string) =>
      s.situations.map((x) => `WHEN list_contains(r.situations, '${x.type}') THEN ${pick(x)}`).join(' ');
    const street = `concat_ws(' ', nullif(trim(pl.addr.street), ''), nullif(trim(pl.addr.buildingNumber), ''),
      nullif(trim(pl.addr.entrance), ''), nullif(trim(pl.addr.apartmentNumber), ''))`;
    const asukoht = `nullif(concat_ws(', ', nullif(${street}, ''), CASE WHEN nullif(trim(pl.addr.postOfficeBox), '') IS NOT NULL
        THEN 'PL ' || trim(pl.addr.postOfficeBox) END,
      nullif(trim(coalesce(pl.addr.postCode, '') || ' ' || coalesce(pl.office.city, '')), '')), '')`;
    const vat = `len(list_filter(${current('r.registeredEntries')}, x -> trim(x.register) = '${FI_VAT_REGISTER}')) > 0`;
    await createEmptyHistory(conn);
    await conn.run(
      contractCompaniesSql(
        {
          registrikood: 'r.code',
          arinimi: 'r.name',
          oiguslik_vorm: 'nullif(trim(r.form."type"), \'\')',
          oiguslik_vorm_tekstina: `list_filter(r.form.descriptions, d -> d.languageCode = '${FI_LANGUAGE.fi}')[1].description`,
          staatus: `CASE WHEN ${ceased} THEN '${s.ceased.staatus}' ${situation((x) => `'${x.staatus}'`)} ELSE '${s.registered.staatus}' END`,
          staatus_tekstina: `CASE WHEN ${ceased} THEN '${s.ceased.text}' ${situation((x) => `'${x.text}'`)} ELSE '${s.registered.text}' END`,
          source_status: `CASE WHEN ${ceased} THEN trim(r.tradeRegisterStatus) ${situation((x) => `'${x.type}'`)}
            ELSE trim(r.tradeRegisterStatus) END`,
          esmaregistreerimise_kpv: 'r.registered',
          ehak_kood: 'loc.kood',
          ehak_nimetus: 'loc.name',
          asukoht,
          aadress_text: `${asukoht} || coalesce(', ' || loc.county, '')`,
          vat_active: vat,
          // PRH publishes the VAT registration, not a VAT number: none is built from the business ID.
          vat_number: 'NULL::VARCHAR',
          contacts: `CASE WHEN nullif(trim(r.website.url), '') IS NOT NULL
            THEN [{liik: 'WWW', sisu: trim(r.website.url), "source": NULL::VARCHAR}] ELSE [] END`,
          emtak: `CASE WHEN a.kood IS NOT NULL THEN [{kood: a.kood, label: l.label, is_main: true}] ELSE [] END`,
          is_sole_trader: 'false',
          not_for_sale: 'false',
          search_name: searchNameSql('r.name'),
        },
        `fi_rows r
         JOIN fi_place pl USING (code)
         LEFT JOIN fi_acts a USING (code)
         LEFT JOIN activity_leaves l ON l.kood = a.kood
         LEFT JOIN location_leaves loc ON loc.kood = trim(pl.office.municipalityCode)`,
      ),
    );
  });
  return {
    source: 'official-files',
    sourceDetail: { register: 'PRH / YTJ open data v3', reader: 'ingest/official/fi' },
  };
}

export const FI_ADAPTER: CountryAdapter = { country: 'FI', files: FI_FILES, stage: stageFinland };

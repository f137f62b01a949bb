import { buildCompanies, naceCorrespondence, stageSteps } from '../stage-steps.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import { FI_FILES, FI_LANGUAGE, FI_STATUS, FI_VAT_REGISTER } from './files.ts';

const DESCRIPTIONS = 'STRUCT(languageCode VARCHAR, description VARCHAR)[]';
/** Entries still in force: PRH keeps ended names, forms, situations and registrations with an endDate. */
const current = (list: string) => `list_filter(${list}, x -> nullif(trim(x.endDate), '') IS NULL)`;

/** The keys of a YTJ company record the adapter reads, with their types. */
const COMPANY_COLUMNS = [
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
] as const;

/**
 * Each company's current entries: the official name (type 1), the form, the street address (type 1)
 * before the postal one, and its municipality's Finnish post office (fi_rows, fi_place).
 */
async function buildCurrent(ctx: StageContext): Promise<void> {
  const { conn } = ctx;
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
  await ctx.source('companies').nulled(
    'municipalityCode not a kunta of the reference (ehak_kood left empty)',
    `SELECT count(*) AS n, any_value(office.municipalityCode) AS example FROM fi_place p
     WHERE nullif(trim(office.municipalityCode), '') IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM location_leaves l WHERE l.kood = trim(p.office.municipalityCode))`,
  );
}

/**
 * TOL: five digits, the first four the NACE class. TOIMI4 is TOL 2025 (Rev. 2.1); TOIMI3 is TOL 2008
 * (Rev. 2) and mapped; 00000 means unknown (fi_acts).
 */
async function buildActivities(ctx: StageContext): Promise<void> {
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE fi_acts AS
    SELECT r.code, r.mainBusinessLine."type" AS raw,
      CASE WHEN upper(trim(r.mainBusinessLine.typeCodeSet)) = 'TOIMI3' THEN m.kood ELSE coalesce(l.kood, m.kood) END AS kood
    FROM fi_rows r
      LEFT JOIN activity_leaves l ON l.kood = left(trim(r.mainBusinessLine."type"), 4)
      LEFT JOIN nace_rev2 m ON m.old = left(trim(r.mainBusinessLine."type"), 4)
    WHERE nullif(trim(r.mainBusinessLine."type"), '') IS NOT NULL`);
  await ctx
    .source('companies')
    .nulled(
      'TOL code not a NACE Rev. 2.1 class nor mapped from Rev. 2 (activity left out)',
      `SELECT count(*) AS n, any_value(raw) AS example FROM fi_acts WHERE kood IS NULL`,
    );
}

const S = FI_STATUS;
const CEASED = `(trim(r.tradeRegisterStatus) = '${S.ceased.tradeRegisterStatus}' OR nullif(trim(r.endDate), '') IS NOT NULL)`;
const situation = (pick: (x: (typeof S.situations)[number]) => string) =>
  S.situations.map((x) => `WHEN list_contains(r.situations, '${x.type}') THEN ${pick(x)}`).join(' ');
const STREET = `concat_ws(' ', nullif(trim(pl.addr.street), ''), nullif(trim(pl.addr.buildingNumber), ''),
  nullif(trim(pl.addr.entrance), ''), nullif(trim(pl.addr.apartmentNumber), ''))`;
const ASUKOHT = `nullif(concat_ws(', ', nullif(${STREET}, ''), CASE WHEN nullif(trim(pl.addr.postOfficeBox), '') IS NOT NULL
    THEN 'PL ' || trim(pl.addr.postOfficeBox) END,
  nullif(trim(coalesce(pl.addr.postCode, '') || ' ' || coalesce(pl.office.city, '')), '')), '')`;

/** stage_companies: the contract's columns over the tables above. */
const buildFinlandCompanies = buildCompanies({
  values: {
    registrikood: 'r.code',
    arinimi: 'r.name',
    oiguslik_vorm: `nullif(trim(r.form."type"), '')`,
    oiguslik_vorm_tekstina: `list_filter(r.form.descriptions, d -> d.languageCode = '${FI_LANGUAGE.fi}')[1].description`,
    staatus: `CASE WHEN ${CEASED} THEN '${S.ceased.staatus}' ${situation((x) => `'${x.staatus}'`)} ELSE '${S.registered.staatus}' END`,
    staatus_tekstina: `CASE WHEN ${CEASED} THEN '${S.ceased.text}' ${situation((x) => `'${x.text}'`)} ELSE '${S.registered.text}' END`,
    source_status: `CASE WHEN ${CEASED} THEN trim(r.tradeRegisterStatus) ${situation((x) => `'${x.type}'`)}
      ELSE trim(r.tradeRegisterStatus) END`,
    esmaregistreerimise_kpv: 'r.registered',
    ehak_kood: 'loc.kood',
    ehak_nimetus: 'loc.name',
    asukoht: ASUKOHT,
    aadress_text: `${ASUKOHT} || coalesce(', ' || loc.county, '')`,
    // The address text above already holds it (`00100 HELSINKI`).
    postcode: "nullif(trim(pl.addr.postCode), '')",
    vat_active: `len(list_filter(${current('r.registeredEntries')}, x -> trim(x.register) = '${FI_VAT_REGISTER}')) > 0`,
    // PRH publishes the VAT registration, not a VAT number: none is built from the business ID.
    vat_number: 'NULL::VARCHAR',
    contacts: `CASE WHEN nullif(trim(r.website.url), '') IS NOT NULL
      THEN [{liik: 'WWW', sisu: trim(r.website.url), "source": NULL::VARCHAR}] ELSE [] END`,
    emtak: `CASE WHEN a.kood IS NOT NULL THEN [{kood: a.kood, label: l.label, is_main: true}] ELSE [] END`,
    is_sole_trader: 'false',
    not_for_sale: 'false',
  },
  from: `fi_rows r
    JOIN fi_place pl USING (code)
    LEFT JOIN fi_acts a USING (code)
    LEFT JOIN activity_leaves l ON l.kood = a.kood
    LEFT JOIN location_leaves loc ON loc.kood = trim(pl.office.municipalityCode)`,
  noHistory: true,
});

/** YTJ's one JSON array on a single line (~1.4 GB): DuckDB's reader streams it element by element. */
async function readCompanies(ctx: StageContext): Promise<void> {
  const raw = await ctx.read('json', { key: 'companies', table: 'raw_ytj', columns: COMPANY_COLUMNS });
  await raw.keyRows('ingest_register', 'businessId.value', { checkRule: true });
}

const stageFinland = stageSteps({ register: 'PRH / YTJ open data v3', reader: 'ingest/official/fi' }, [
  naceCorrespondence(false),
  readCompanies,
  buildCurrent,
  buildActivities,
  buildFinlandCompanies,
]);

export const FI_ADAPTER: CountryAdapter = { country: 'FI', files: FI_FILES, stage: stageFinland };

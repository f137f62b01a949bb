import { countSql, notCountSql } from '../../../src/contract/data-contract.ts';
import { queryRows } from '../../pipeline/sql.ts';
import { ANNUAL_VALUES, createEmptyHistory, JOINED_LISTS } from '../stage-sql.ts';
import { buildCompanies, joinsByCode, LATEST_METRICS_JOIN, placeJoin, stageSteps } from '../stage-steps.ts';
import { readHeaderFields } from '../text-file.ts';
import type { CountryAdapter, StageContext } from '../types.ts';
import { isEnheterCsv, NO_ENHETER_CSV_HEADER, NO_FILES, NO_PERSON_ROLES } from './files.ts';
import { createKommuneTable } from './kommune.ts';
import { SN2025_LEAF_SQL, sn2025JoinSql } from './sn2025.ts';

/**
 * Enhetsregisteret has no status code: a unit is normal unless a flag is set. The flag decides the state,
 * and its name is kept as source_status; a bankrupt estate is often also under avvikling, so konkurs wins.
 */
export const NO_STATUS = [
  { flag: 'konkurs', staatus: 'N', text: 'Konkurs' },
  {
    flag: 'underTvangsavviklingEllerTvangsopplosning',
    staatus: 'L',
    text: 'Under tvangsavvikling eller tvangsoppløsning',
  },
  { flag: 'underAvvikling', staatus: 'L', text: 'Under avvikling' },
  { flag: 'underRekonstruksjonsforhandlingDato', staatus: 'T', text: 'Under rekonstruksjonsforhandling' },
] as const;
const REGISTERED_TEXT = 'Registrert';

const ADDRESS = `STRUCT(adresse VARCHAR[], postnummer VARCHAR, poststed VARCHAR, kommune VARCHAR,
  kommunenummer VARCHAR, land VARCHAR, landkode VARCHAR)`;
const CODE = 'STRUCT(kode VARCHAR, beskrivelse VARCHAR)';
/** JSON true (or the CSV's "true"); booleans are read as text so either spelling converts. */
const isTrue = (expr: string) => `coalesce(lower(trim(${expr})) = 'true', false)`;

/** The JSON keys of enheter the adapter reads, with their types (the CSV is brought to the same shape). */
const UNIT_COLUMNS = [
  ['organisasjonsnummer', 'VARCHAR'],
  ['navn', 'VARCHAR'],
  ['organisasjonsform', CODE],
  ['naeringskode1', CODE],
  ['naeringskode2', CODE],
  ['naeringskode3', CODE],
  ['harRegistrertAntallAnsatte', 'VARCHAR'],
  ['antallAnsatte', 'VARCHAR'],
  ['registreringsdatoAntallAnsatteEnhetsregisteret', 'VARCHAR'],
  ['registreringsdatoantallansatteNAVAaregisteret', 'VARCHAR'],
  ['hjemmeside', 'VARCHAR'],
  ['epostadresse', 'VARCHAR'],
  ['telefon', 'VARCHAR'],
  ['mobil', 'VARCHAR'],
  ['forretningsadresse', ADDRESS],
  ['postadresse', ADDRESS],
  ['registreringsdatoEnhetsregisteret', 'VARCHAR'],
  // The JSON spells it registrertIMvaregisteret, the CSV registrertIMvaRegisteret; DuckDB matches JSON keys
  // without regard to case, and the CSV header is matched the same way.
  ['registrertIMvaregisteret', 'VARCHAR'],
  ...NO_STATUS.map((s) => [s.flag, 'VARCHAR'] as const),
  ['kapital', 'STRUCT(belop VARCHAR, valuta VARCHAR)'],
] as const;

/**
 * The SELECT that brings BRREG's CSV download of enheter (`raw_enheter_csv`, columns `present`) to the
 * JSON's shape: dotted header names become the nested keys, booleans stay the strings "true"/"false", a
 * multi-line address cell becomes its lines; a column the file lacks reads as NULL.
 */
function unitsFromCsvSql(present: (name: string) => boolean): string {
  const col = (name: string) => (present(name) ? `nullif(c."${name}", '')` : 'NULL::VARCHAR');
  const code = (prefix: string) =>
    `CASE WHEN ${col(`${prefix}.kode`)} IS NOT NULL THEN {kode: ${col(`${prefix}.kode`)}, beskrivelse: ${col(`${prefix}.beskrivelse`)}} END`;
  const address = (prefix: string) => {
    const parts = ['adresse', 'postnummer', 'poststed', 'kommune', 'kommunenummer', 'land', 'landkode'];
    const any = parts.map((p) => `${col(`${prefix}.${p}`)} IS NOT NULL`).join(' OR ');
    return `CASE WHEN ${any} THEN {adresse: string_split(${col(`${prefix}.adresse`)}, chr(10)),
      postnummer: ${col(`${prefix}.postnummer`)}, poststed: ${col(`${prefix}.poststed`)},
      kommune: ${col(`${prefix}.kommune`)}, kommunenummer: ${col(`${prefix}.kommunenummer`)},
      land: ${col(`${prefix}.land`)}, landkode: ${col(`${prefix}.landkode`)}} END`;
  };
  const plain = (name: string, from = name) => `${col(from)} AS "${name}"`;
  return `SELECT
      ${plain('organisasjonsnummer')}, c."navn" AS navn,
      ${code('organisasjonsform')} AS organisasjonsform,
      ${code('naeringskode1')} AS naeringskode1, ${code('naeringskode2')} AS naeringskode2,
      ${code('naeringskode3')} AS naeringskode3,
      ${plain('harRegistrertAntallAnsatte')}, ${plain('antallAnsatte')},
      ${plain('registreringsdatoAntallAnsatteEnhetsregisteret')},
      ${plain('registreringsdatoantallansatteNAVAaregisteret')},
      ${plain('hjemmeside')}, ${plain('epostadresse')}, ${plain('telefon')}, ${plain('mobil')},
      ${address('forretningsadresse')} AS forretningsadresse, ${address('postadresse')} AS postadresse,
      ${plain('registreringsdatoEnhetsregisteret', 'registreringsdatoenhetsregisteret')},
      ${plain('registrertIMvaregisteret', 'registrertIMvaRegisteret')},
      ${NO_STATUS.map((s) => plain(s.flag)).join(', ')},
      CASE WHEN ${col('kapital.belop')} IS NOT NULL THEN {belop: ${col('kapital.belop')}, valuta: ${col('kapital.valuta')}} END
        AS kapital
    FROM raw_enheter_csv c`;
}

/**
 * enheter as `raw_enheter`, from the JSON or from BRREG's CSV download. The CSV's columns are matched by
 * name regardless of case (its own spellings differ from the JSON keys) and brought to the JSON's shape.
 */
async function loadUnits(ctx: StageContext): Promise<void> {
  const file = ctx.sources.one('enheter')!;
  if (!isEnheterCsv(ctx.sources.displayName(file))) {
    await ctx.read('json', { key: 'enheter', table: 'raw_enheter', columns: UNIT_COLUMNS });
    return;
  }
  const canonical = new Map(NO_ENHETER_CSV_HEADER.map((h) => [h.toLowerCase(), h as string]));
  const headerKey = (raw: string) => canonical.get(raw.trim().toLowerCase()) ?? raw.trim();
  const inFile = new Set(readHeaderFields(file, ',', 'utf-8').map(headerKey));
  const required = ['organisasjonsnummer', 'navn', 'organisasjonsform.kode'];
  const present = (h: string) => required.includes(h) || inFile.has(h);
  await ctx.read('csv', {
    key: 'enheter',
    table: 'raw_enheter_csv',
    delimiter: ',',
    header: NO_ENHETER_CSV_HEADER,
    byName: true,
    headerKey,
    columns: NO_ENHETER_CSV_HEADER.filter(present).map((h) => [h, 'VARCHAR'] as const),
  });
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE raw_enheter AS ${unitsFromCsvSql(present)}`);
  await ctx.conn.run('DROP TABLE raw_enheter_csv');
}

/** The units keyed by organisation number (ingest_register); which file it was goes into the source detail. */
async function readUnits(ctx: StageContext): Promise<{ units_file: string }> {
  await loadUnits(ctx);
  const units = ctx.source('enheter', 'raw_enheter');
  await units.keyRows('ingest_register', 'organisasjonsnummer', { checkRule: true });
  return { units_file: units.name };
}

/**
 * The kommune: the business address's, else the postal one's, through SSB's changes onto the current
 * structure; a code with no single current successor is nulled and counted per code (no_place).
 */
async function buildPlaces(ctx: StageContext): Promise<void> {
  await createKommuneTable(ctx.conn);
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE no_place AS
    SELECT r.code, k.raw, m.kood FROM ingest_register r,
      LATERAL (SELECT nullif(trim(coalesce(r.forretningsadresse.kommunenummer, r.postadresse.kommunenummer)), '') AS raw) k
      LEFT JOIN no_kommune m ON m.code = k.raw`);
  await ctx.source('enheter').perCode(
    'kommunenummer',
    `SELECT p.raw AS code, count(*) AS n, min(p.code) AS example FROM no_place p
     WHERE p.raw IS NOT NULL AND p.kood IS NULL GROUP BY p.raw`,
    { listAll: true },
  );
}

/** Activities: naeringskode1..3 onto the served SN2025 leaves; the first is the main one (no_emtak). */
async function buildActivities(ctx: StageContext): Promise<void> {
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE no_acts AS
    SELECT src.code, src.ord, src.raw, ${SN2025_LEAF_SQL} AS kood
    FROM (
      SELECT code, 1 AS ord, trim(naeringskode1.kode) AS raw FROM ingest_register
      UNION ALL SELECT code, 2, trim(naeringskode2.kode) FROM ingest_register
      UNION ALL SELECT code, 3, trim(naeringskode3.kode) FROM ingest_register
    ) src ${sn2025JoinSql('src.raw')}
    WHERE nullif(src.raw, '') IS NOT NULL`);
  await ctx
    .source('enheter')
    .nulled(
      'næringskode not in the SN2025 tree (activity left out)',
      `SELECT count(*) AS n, any_value(raw) AS example FROM no_acts WHERE kood IS NULL`,
    );
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE no_emtak AS
    SELECT code, list({kood: a.kood, label: l.label, is_main: a.ord = 1} ORDER BY a.ord) AS emtak
    FROM (SELECT * FROM no_acts WHERE kood IS NOT NULL QUALIFY row_number() OVER (PARTITION BY code, kood ORDER BY ord) = 1) a
      JOIN activity_leaves l USING (kood)
    GROUP BY code`);
}

/**
 * The employee count is the one history period: a snapshot dated when the count was last registered, else
 * the run's date (real units carry the count without those dates). antallAnsatte is taken as BRREG writes
 * it, whatever harRegistrertAntallAnsatte says: BRREG defines that flag as "the unit has registered
 * employees", so `false` beside `"antallAnsatte": 0` is the register saying "no registered employees", a
 * real 0 (issue 28). Only a unit without the key (the JSON) or with an empty cell (the CSV) is unknown.
 */
async function buildEmployeeHistory(ctx: StageContext): Promise<void> {
  const { conn, now } = ctx;
  await createEmptyHistory(conn);
  const given = "nullif(trim(antallAnsatte), '')";
  await ctx.source('enheter').nulled(
    'antallAnsatte is not a whole number (no employee count)',
    `SELECT count(*) AS n, any_value(antallAnsatte) AS example FROM ingest_register
     WHERE ${given} IS NOT NULL AND (TRY_CAST(${given} AS DOUBLE) IS NULL OR ${notCountSql(`TRY_CAST(${given} AS DOUBLE)`)})`,
  );
  await conn.run(`INSERT INTO stage_history
    SELECT code, year(as_of)::VARCHAR, 'snapshot', year(as_of), 0, 0, NULL, employees, NULL, NULL, as_of
    FROM (
      SELECT code, ${countSql(`TRY_CAST(${given} AS DOUBLE)`)} AS employees,
        coalesce(TRY_CAST(registreringsdatoAntallAnsatteEnhetsregisteret AS DATE),
                 TRY_CAST(registreringsdatoantallansatteNAVAaregisteret AS DATE),
                 DATE '${now.toISOString().slice(0, 10)}') AS as_of
      FROM ingest_register
    ) WHERE employees IS NOT NULL`);
}

const SUBUNIT_COLUMNS = [
  'organisasjonsnummer',
  'overordnetEnhet',
  'telefon',
  'mobil',
  'epostadresse',
  'hjemmeside',
  'nedleggelsesdato',
];

/** underenheter: the open sub-units' contacts (no_sub_contacts); their count, null when the file is absent. */
async function readSubunits(ctx: StageContext): Promise<{ subunits: number | null }> {
  const { conn } = ctx;
  const subunits = await ctx.read('json', {
    key: 'underenheter',
    table: 'raw_underenheter',
    columns: SUBUNIT_COLUMNS.map((c) => [c, 'VARCHAR'] as const),
    ifAbsent: SUBUNIT_COLUMNS.map((c) => `${c} VARCHAR`).join(', '),
  });
  await subunits.orphans('sub-units', { codeSql: 'trim(t.overordnetEnhet)' });
  const [count] = await queryRows(conn, 'SELECT count(*)::BIGINT AS n FROM raw_underenheter');
  // Contacts of open sub-units, marked as such (spec 2.3 source no_subunit), in sub-unit order.
  const kinds = [
    ['EMAIL', 'epostadresse'],
    ['WWW', 'hjemmeside'],
    ['TEL', 'telefon'],
    ['MOB', 'mobil'],
  ] as const;
  await conn.run(`CREATE OR REPLACE TEMP TABLE no_sub_contacts AS
    SELECT trim(overordnetEnhet) AS code,
      flatten(list(list_filter([${kinds.map(([k, c]) => `{liik: '${k}', sisu: nullif(trim(${c}), ''), "source": 'no_subunit'}`).join(', ')}],
        x -> x.sisu IS NOT NULL) ORDER BY organisasjonsnummer)) AS contacts
    FROM raw_underenheter
    WHERE nullif(trim(nedleggelsesdato), '') IS NULL AND trim(overordnetEnhet) IN (SELECT code FROM ingest_register)
    GROUP BY 1`);
  await conn.run('DROP TABLE raw_underenheter');
  return { subunits: subunits.present ? Number(count?.['n'] ?? 0) : null };
}

const ROLE_GROUPS = `STRUCT("type" ${CODE}, roller STRUCT("type" ${CODE},
  person STRUCT(navn STRUCT(fornavn VARCHAR, mellomnavn VARCHAR, etternavn VARCHAR)),
  enhet STRUCT(organisasjonsnummer VARCHAR, navn JSON), fratraadt VARCHAR)[])[]`;

/** roller: the current people (no_people); whether the file came goes into the source detail. */
async function readRoles(ctx: StageContext): Promise<{ roles_file: boolean }> {
  // Birth dates (person.fodselsdato) are never read: the contract holds no personal identifiers.
  const raw = await ctx.read('json', {
    key: 'roller',
    table: 'raw_roller',
    columns: [
      ['organisasjonsnummer', 'VARCHAR'],
      ['rollegrupper', ROLE_GROUPS],
    ],
    ifAbsent: `organisasjonsnummer VARCHAR, rollegrupper ${ROLE_GROUPS}`,
  });
  const roles = await raw.keyRows('no_roles', 'organisasjonsnummer');
  await roles.orphans('roles');
  const kept = NO_PERSON_ROLES.map((r) => `'${r}'`).join(', ');
  // A unit's name in a role is a list of name lines in the roles API; a plain string is accepted too.
  const unitName = `coalesce(array_to_string(TRY_CAST(r.enhet.navn AS VARCHAR[]), ' '), r.enhet.navn ->> '$')`;
  await ctx.conn.run(`CREATE OR REPLACE TEMP TABLE no_people AS
    SELECT code, list({
      nimi: CASE WHEN r.person IS NOT NULL
        THEN concat_ws(' ', nullif(trim(r.person.navn.fornavn), ''), nullif(trim(r.person.navn.mellomnavn), ''),
          nullif(trim(r.person.navn.etternavn), ''))
        ELSE trim(${unitName}) END,
      isiku_tyyp: CASE WHEN r.person IS NOT NULL THEN 'F' ELSE 'J' END,
      roll: r."type".kode, roll_tekstina: r."type".beskrivelse, algus_kpv: NULL::DATE} ORDER BY g_ord, r_ord) AS people
    FROM (
      SELECT code, g_ord, generate_subscripts(g.roller, 1) AS r_ord, unnest(g.roller) AS r
      FROM (SELECT code, generate_subscripts(rollegrupper, 1) AS g_ord, unnest(rollegrupper) AS g FROM no_roles)
    )
    WHERE r."type".kode IN (${kept}) AND NOT ${isTrue('r.fratraadt')}
    GROUP BY code`);
  return { roles_file: raw.present };
}

const ACCOUNT_COLUMNS = [
  ['regnskapstype', 'VARCHAR'],
  ['virksomhet', 'STRUCT(organisasjonsnummer VARCHAR)'],
  ['regnskapsperiode', 'STRUCT(fraDato VARCHAR, tilDato VARCHAR)'],
  ['valuta', 'VARCHAR'],
  ['egenkapitalGjeld', 'STRUCT(egenkapital STRUCT(sumEgenkapital VARCHAR))'],
  ['eiendeler', 'STRUCT(sumEiendeler VARCHAR)'],
  [
    'resultatregnskapResultat',
    'STRUCT(aarsresultat VARCHAR, driftsresultat STRUCT(driftsinntekter STRUCT(sumDriftsinntekter VARCHAR)))',
  ],
] as const;

/** regnskap, one file a year: each company's latest accounts in NOK (no_annual). */
async function readAccounts(ctx: StageContext): Promise<{ accounts_files: boolean }> {
  const { conn } = ctx;
  await conn.run(`CREATE OR REPLACE TEMP TABLE no_accounts (code VARCHAR, yr INTEGER, currency VARCHAR,
    revenue DOUBLE, net_profit DOUBLE, equity DOUBLE, total_assets DOUBLE)`);
  const files = ctx.sources.many('regnskap');
  for (const [i, path] of files.entries()) {
    const accounts = await ctx.read('json', { path, table: `raw_regnskap_${i}`, columns: ACCOUNT_COLUMNS });
    await accounts.orphans('accounts', { codeSql: 'trim(t.virksomhet.organisasjonsnummer)' });
    // Company accounts only (a group's KONSERN accounts are another entity's figures).
    await conn.run(`INSERT INTO no_accounts
      SELECT trim(virksomhet.organisasjonsnummer), year(TRY_CAST(regnskapsperiode.tilDato AS DATE)), upper(trim(valuta)),
        TRY_CAST(resultatregnskapResultat.driftsresultat.driftsinntekter.sumDriftsinntekter AS DOUBLE),
        TRY_CAST(resultatregnskapResultat.aarsresultat AS DOUBLE),
        TRY_CAST(egenkapitalGjeld.egenkapital.sumEgenkapital AS DOUBLE),
        TRY_CAST(eiendeler.sumEiendeler AS DOUBLE)
      FROM raw_regnskap_${i}
      WHERE coalesce(upper(trim(regnskapstype)), 'SELSKAP') = 'SELSKAP'
        AND trim(virksomhet.organisasjonsnummer) IN (SELECT code FROM ingest_register)`);
    await conn.run(`DROP TABLE raw_regnskap_${i}`);
  }
  await ctx.file('regnskap').nulled(
    'accounts in a currency other than NOK or without a period end (left out)',
    `SELECT count(*) AS n, any_value(coalesce(currency, '?')) AS example FROM no_accounts
     WHERE currency IS DISTINCT FROM 'NOK' OR yr IS NULL`,
  );
  await conn.run(`CREATE OR REPLACE TEMP TABLE no_annual AS
    SELECT * FROM no_accounts WHERE currency = 'NOK' AND yr IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY code ORDER BY yr DESC) = 1`);
  return { accounts_files: files.length > 0 };
}

type Status = (typeof NO_STATUS)[number];
const flagSet = (s: Status) =>
  s.flag.endsWith('Dato') ? `nullif(trim(r."${s.flag}"), '') IS NOT NULL` : isTrue(`r."${s.flag}"`);
/** A CASE over the status flags, first set flag first: `pick` of its entry, else `otherwise`. */
const statusOf = (pick: (s: Status) => string, otherwise: string) =>
  `CASE ${NO_STATUS.map((s) => `WHEN ${flagSet(s)} THEN ${pick(s)}`).join(' ')} ELSE ${otherwise} END`;
// The business address, else the postal one; adresse is an array of lines.
const ADDR = 'coalesce(r.forretningsadresse, r.postadresse)';
const ASUKOHT = `nullif(concat_ws(', ', nullif(array_to_string(list_filter(${ADDR}.adresse, x -> nullif(trim(x), '') IS NOT NULL), ', '), ''),
  nullif(trim(coalesce(${ADDR}.postnummer, '') || ' ' || coalesce(${ADDR}.poststed, '')), '')), '')`;
const contact = (liik: string, col: string) =>
  `{liik: '${liik}', sisu: nullif(trim(r.${col}), ''), "source": NULL::VARCHAR}`;
const AMOUNT = `TRY_CAST(r.kapital.belop AS DOUBLE)`;

/** stage_companies: the contract's columns over the tables above. */
const buildNorwayCompanies = buildCompanies({
  values: {
    registrikood: 'r.code',
    arinimi: 'r.navn',
    oiguslik_vorm: "nullif(trim(r.organisasjonsform.kode), '')",
    oiguslik_vorm_tekstina: "nullif(trim(r.organisasjonsform.beskrivelse), '')",
    staatus: statusOf((s) => `'${s.staatus}'`, "'R'"),
    staatus_tekstina: statusOf((s) => `'${s.text}'`, `'${REGISTERED_TEXT}'`),
    source_status: statusOf((s) => `'${s.flag}'`, 'NULL'),
    esmaregistreerimise_kpv: 'TRY_CAST(r.registreringsdatoEnhetsregisteret AS DATE)',
    ehak_kood: 'loc.kood',
    ehak_nimetus: 'loc.name',
    asukoht: ASUKOHT,
    aadress_text: `${ASUKOHT} || coalesce(', ' || loc.county, '')`,
    // The address text above already holds it (`8900 BRØNNØYSUND`).
    postcode: `nullif(trim(${ADDR}.postnummer), '')`,
    // The flag as the register gives it; a unit without it is unknown, not "not registered".
    vat_active: `CASE WHEN nullif(trim(r.registrertIMvaregisteret), '') IS NOT NULL THEN ${isTrue('r.registrertIMvaregisteret')} END`,
    // Enhetsregisteret publishes the VAT registration, not a VAT number: none is built from the orgnr.
    vat_number: 'NULL::VARCHAR',
    kapital: `CASE WHEN ${AMOUNT} IS NOT NULL THEN
      CASE WHEN ${AMOUNT} = round(${AMOUNT}) THEN CAST(${AMOUNT} AS BIGINT)::VARCHAR ELSE printf('%.2f', ${AMOUNT}) END
      || coalesce(' ' || nullif(trim(r.kapital.valuta), ''), '') END`,
    kapital_amount: AMOUNT,
    kapital_currency: "nullif(trim(r.kapital.valuta), '')",
    ...ANNUAL_VALUES,
    contacts: `list_filter([${contact('EMAIL', 'epostadresse')}, ${contact('WWW', 'hjemmeside')},
        ${contact('TEL', 'telefon')}, ${contact('MOB', 'mobil')}], x -> x.sisu IS NOT NULL)
      || coalesce(sc.contacts, [])`,
    ...JOINED_LISTS,
    is_sole_trader: "coalesce(trim(r.organisasjonsform.kode) = 'ENK', false)",
    not_for_sale: 'false',
  },
  from: `ingest_register r
    ${joinsByCode({ e: 'no_emtak', p: 'no_people', sc: 'no_sub_contacts', a: 'no_annual' })}
    ${LATEST_METRICS_JOIN}
    ${placeJoin('no_place')}`,
  latestMetrics: true,
});

const stageNorway = stageSteps(
  { register: 'Brønnøysundregistrene: Enhetsregisteret, Regnskapsregisteret', reader: 'ingest/official/no' },
  [
    readUnits,
    buildPlaces,
    buildActivities,
    buildEmployeeHistory,
    readSubunits,
    readRoles,
    readAccounts,
    buildNorwayCompanies,
  ],
);

export const NO_ADAPTER: CountryAdapter = { country: 'NO', files: NO_FILES, stage: stageNorway };

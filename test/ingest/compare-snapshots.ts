import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CountryCode } from '../../src/contract/countries.ts';
import fs from 'node:fs';
import {
  COMPANY_COLUMNS,
  HISTORY_COLUMNS,
  WORKPLACE_COLUMNS,
  type ColumnSpec,
} from '../../src/contract/data-contract.ts';

/**
 * What the official files carry, per country: the companies columns compared between the world snapshot
 * and the snapshot ingested from the world's official files. A column is compared as is, through a
 * normalising expression (applied to both sides, `x` is the column), or left out because no official file
 * carries it (docs/ingest.md lists these with the reason).
 */
export interface FieldRule {
  /** SQL on a side aliased `x` (e.g. only the register's own contacts); default: the column itself. */
  expr?: string;
  /** SQL condition on the world row (`w`) and the ingested row (`i`) limiting which rows are compared. */
  where?: string;
}

export type CountryRules = Record<string, FieldRule | 'not carried'>;

export const CARRIED: Partial<Record<CountryCode, CountryRules>> = {
  EE: {
    // Role mailboxes read from the company's own website (source own_site) are not in any register file.
    contacts: { expr: 'list_filter(x.contacts, c -> c."source" IS NULL)' },
    registered_domains: 'not carried',
    // RIK blanks the VAT number of sole traders (it would identify a person), so their VAT status is lost.
    vat_active: { where: 'NOT w.is_sole_trader' },
  },
  LV: {
    kapital: 'not carried',
    kapital_amount: 'not carried',
    kapital_currency: 'not carried',
    contacts: 'not carried',
    // Only the main activity is published (VID's Pamatdarbibas_NACE_kods), for commercial taxpayers.
    emtak: { expr: 'x.emtak[1:1]', where: 'len(i.emtak) > 0' },
  },
  NO: {
    // The register publishes the VAT registration, not a VAT number, and none is built from the code.
    vat_number: 'not carried',
    // BRREG writes poststed in capitals; the world spells the town as the kommune's name.
    asukoht: { expr: 'upper(x.asukoht)' },
    aadress_text: { expr: 'upper(x.aadress_text)' },
    contacts: { expr: `list_filter(x.contacts, c -> c."source" IS DISTINCT FROM 'own_site')` },
    // Three næringskoder at most, published in SN2025, the edition the tree serves.
    emtak: { expr: 'x.emtak[1:3]' },
    // The roles file groups people by role group and has no start date.
    people: {
      expr: `list_sort(list_transform(x.people, p -> {nimi: p.nimi, isiku_tyyp: p.isiku_tyyp, roll: p.roll, roll_tekstina: p.roll_tekstina}))`,
    },
    search_people: { expr: `list_sort(string_split(x.search_people, ' | '))` },
  },
  FI: {
    // The register publishes the VAT registration, not a VAT number, and none is built from the code.
    vat_number: 'not carried',
    // PRH writes post-office names in capitals; the world spells the town as the kunta's name.
    asukoht: { expr: 'upper(x.asukoht)' },
    aadress_text: { expr: 'upper(x.aadress_text)' },
    // PRH publishes a website only, and the main line of business only.
    contacts: { expr: `list_filter(x.contacts, c -> c.liik = 'WWW' AND c."source" IS NULL)` },
    emtak: { expr: 'x.emtak[1:1]' },
    registered_domains: 'not carried',
    people: 'not carried',
    search_people: 'not carried',
  },
  LT: {
    kapital: 'not carried',
    kapital_amount: 'not carried',
    kapital_currency: 'not carried',
    contacts: 'not carried',
  },
  SE: {
    // The register publishes the VAT registration, not a VAT number, and none is built from the code.
    vat_number: 'not carried',
    // No Swedish register file publishes company contacts (SCB's workplaces carry phone and e-mail).
    contacts: 'not carried',
  },
  PL: {
    // VAT status is on the Ministry of Finance's white list (Wykaz podatników VAT), which is not read.
    vat_active: 'not carried',
    vat_number: 'not carried',
    contacts: { expr: `list_filter(x.contacts, c -> c."source" <> 'own_site')` },
    // The current KRS extract gives no start date per person (the full extract's entry history would), and
    // lists prokurenci apart from the board, so people are compared without dates and in a fixed order.
    people: {
      expr: 'list_sort(list_transform(x.people, p -> {n: p.nimi, t: p.isiku_tyyp, r: p.roll, l: p.roll_tekstina}))',
    },
    search_people: { expr: `list_sort(string_split(x.search_people, ' | '))` },
  },
};

export interface ColumnDiff {
  column: string;
  compared: number;
  different: number;
  examples: Record<string, unknown>[];
}

export interface CompareResult {
  worldRows: number;
  ingestedRows: number;
  missing: number;
  extra: number;
  columns: ColumnDiff[];
  history: KeyedDiff;
  /**
   * Rows without a registration code (SE sole traders, whose only code is a personal number): compared as
   * multisets of their compared columns, since nothing keys them. `unmatched` counts world rows with no
   * equal ingested row and the other way round.
   */
  unkeyed: { worldRows: number; ingestedRows: number; unmatched: number };
  /** workplaces.parquet where the world has one (SE), keyed by registrikood and cfar_nr. */
  workplaces: KeyedDiff | null;
}

export interface KeyedDiff {
  worldRows: number;
  ingestedRows: number;
  missing: number;
  extra: number;
  columns: ColumnDiff[];
}

async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

const q = (name: string) => `"${name}"`;

/** Compares one country of two snapshot folders (`<dir>/<CC>/companies.parquet` and history). */
export async function compareCountry(
  conn: DuckDBConnection,
  country: CountryCode,
  worldDir: string,
  ingestedDir: string,
): Promise<CompareResult> {
  const rules = CARRIED[country] ?? {};
  const file = (dir: string, f: string) => `'${path.join(dir, country, f).replaceAll("'", "''")}'`;
  await conn.run(
    `CREATE OR REPLACE TEMP VIEW cw AS SELECT * FROM read_parquet(${file(worldDir, 'companies.parquet')})`,
  );
  await conn.run(
    `CREATE OR REPLACE TEMP VIEW ci AS SELECT * FROM read_parquet(${file(ingestedDir, 'companies.parquet')})`,
  );
  const counts = (
    await rows(
      conn,
      `SELECT (SELECT count(*) FROM cw)::INTEGER AS w, (SELECT count(*) FROM ci)::INTEGER AS i,
         (SELECT count(*) FROM cw ANTI JOIN ci USING (registrikood))::INTEGER AS missing,
         (SELECT count(*) FROM ci ANTI JOIN cw USING (registrikood))::INTEGER AS extra`,
    )
  )[0]!;
  const columns: ColumnDiff[] = [];
  for (const c of COMPANY_COLUMNS) {
    const rule = rules[c.name];
    if (rule === 'not carried' || c.name === 'registrikood') continue;
    const expr = (side: 'w' | 'i') => (rule?.expr ?? `x.${q(c.name)}`).replaceAll('x.', `${side}.`);
    const where = rule?.where ?? 'true';
    const r = (
      await rows(
        conn,
        `SELECT count(*)::INTEGER AS compared,
           count(*) FILTER (WHERE ${expr('w')} IS DISTINCT FROM ${expr('i')})::INTEGER AS different
         FROM cw w JOIN ci i USING (registrikood) WHERE w.registrikood <> '' AND ${where}`,
      )
    )[0]!;
    const examples =
      Number(r['different']) > 0
        ? await rows(
            conn,
            `SELECT w.registrikood, ${expr('w')} AS world, ${expr('i')} AS ingested
             FROM cw w JOIN ci i USING (registrikood)
             WHERE w.registrikood <> '' AND ${where} AND ${expr('w')} IS DISTINCT FROM ${expr('i')} LIMIT 3`,
          )
        : [];
    columns.push({
      column: c.name,
      compared: Number(r['compared']),
      different: Number(r['different']),
      examples,
    });
  }

  const history = await compareKeyed(
    conn,
    file(worldDir, 'history.parquet'),
    file(ingestedDir, 'history.parquet'),
    ['registrikood', 'granularity', 'year', 'quarter', 'month'],
    HISTORY_COLUMNS,
  );
  const wp = (dir: string) => path.join(dir, country, 'workplaces.parquet');
  const workplaces = fs.existsSync(wp(worldDir))
    ? await compareKeyed(
        conn,
        file(worldDir, 'workplaces.parquet'),
        file(ingestedDir, 'workplaces.parquet'),
        ['registrikood', 'cfar_nr'],
        WORKPLACE_COLUMNS,
      )
    : null;

  // Rows without a code: the compared columns without a row condition, as multisets (EXCEPT ALL).
  const plain = COMPANY_COLUMNS.filter((c) => {
    const rule = rules[c.name];
    return rule !== 'not carried' && !rule?.where;
  }).map((c) => (rules[c.name] as FieldRule | undefined)?.expr ?? `x.${q(c.name)}`);
  const tuple = (side: 'w' | 'i') =>
    plain.map((e, n) => `${e.replaceAll('x.', `${side}.`)} AS c${n}`).join(', ');
  const unkeyed = (
    await rows(
      conn,
      `WITH w AS (SELECT ${tuple('w')} FROM cw w WHERE w.registrikood = ''),
         i AS (SELECT ${tuple('i')} FROM ci i WHERE i.registrikood = '')
       SELECT (SELECT count(*) FROM w)::INTEGER AS w, (SELECT count(*) FROM i)::INTEGER AS i,
         ((SELECT count(*) FROM (FROM w EXCEPT ALL FROM i)) + (SELECT count(*) FROM (FROM i EXCEPT ALL FROM w)))::INTEGER AS unmatched`,
    )
  )[0]!;
  return {
    worldRows: Number(counts['w']),
    ingestedRows: Number(counts['i']),
    missing: Number(counts['missing']),
    extra: Number(counts['extra']),
    columns,
    history,
    unkeyed: {
      worldRows: Number(unkeyed['w']),
      ingestedRows: Number(unkeyed['i']),
      unmatched: Number(unkeyed['unmatched']),
    },
    workplaces,
  };
}

/** Two Parquet files of one kind, row for row on `key`, every other column of `columns` compared. */
async function compareKeyed(
  conn: DuckDBConnection,
  worldFile: string,
  ingestedFile: string,
  key: readonly string[],
  columns: readonly ColumnSpec[],
): Promise<KeyedDiff> {
  await conn.run(`CREATE OR REPLACE TEMP VIEW kw AS SELECT * FROM read_parquet(${worldFile})`);
  await conn.run(`CREATE OR REPLACE TEMP VIEW ki AS SELECT * FROM read_parquet(${ingestedFile})`);
  const using = `USING (${key.map(q).join(', ')})`;
  const counts = (
    await rows(
      conn,
      `SELECT (SELECT count(*) FROM kw)::INTEGER AS w, (SELECT count(*) FROM ki)::INTEGER AS i,
         (SELECT count(*) FROM kw ANTI JOIN ki ${using})::INTEGER AS missing,
         (SELECT count(*) FROM ki ANTI JOIN kw ${using})::INTEGER AS extra`,
    )
  )[0]!;
  const diffs: ColumnDiff[] = [];
  for (const c of columns) {
    if (key.includes(c.name)) continue;
    const r = (
      await rows(
        conn,
        `SELECT count(*)::INTEGER AS compared,
           count(*) FILTER (WHERE w.${q(c.name)} IS DISTINCT FROM i.${q(c.name)})::INTEGER AS different
         FROM kw w JOIN ki i ${using}`,
      )
    )[0]!;
    const examples =
      Number(r['different']) > 0
        ? await rows(
            conn,
            `SELECT ${key.map((k) => `w.${q(k)}`).join(', ')}, w.${q(c.name)} AS world, i.${q(c.name)} AS ingested
             FROM kw w JOIN ki i ${using} WHERE w.${q(c.name)} IS DISTINCT FROM i.${q(c.name)} LIMIT 3`,
          )
        : [];
    diffs.push({
      column: c.name,
      compared: Number(r['compared']),
      different: Number(r['different']),
      examples,
    });
  }
  return {
    worldRows: Number(counts['w']),
    ingestedRows: Number(counts['i']),
    missing: Number(counts['missing']),
    extra: Number(counts['extra']),
    columns: diffs,
  };
}

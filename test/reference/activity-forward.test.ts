import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTRY_CODES } from '../../src/contract/countries.ts';
import { INDUSTRY_EDITION_NOTES } from '../../src/contract/filters.ts';
import { loadReference } from '../../ingest/reference/index.ts';

const data = (file: string): string =>
  `'${fileURLToPath(new URL(`../../ingest/reference/data/${file}`, import.meta.url))}'`;

let instance: DuckDBInstance;
let conn: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

/** The served leaves of a country as a DuckDB table `served(kood, klass, national, ord)`. */
async function servedTable(codes: readonly string[]): Promise<void> {
  await conn.run('CREATE OR REPLACE TABLE served (kood VARCHAR, ord INTEGER)');
  const appender = await conn.createAppender('served');
  codes.forEach((kood, i) => {
    appender.appendVarchar(kood);
    appender.appendInteger(i);
    appender.endRow();
  });
  appender.closeSync();
}

/**
 * The forward map computed independently in SQL over the real files: old code → its 4-digit class →
 * the correspondence rows of that class (the same-code successor first, then the same group, the same
 * division, each from the table's last) → the first successor with served leaves → the leaf with the old code's
 * national part, else the class's last leaf.
 */
async function expectedForward(oldCodesSql: string): Promise<Map<string, string>> {
  const rows = await conn.runAndReadAll(`
    WITH old AS (${oldCodesSql}),
    o AS (
      SELECT code, left(regexp_replace(code, '[^0-9A-Za-z]', '', 'g'), 4) AS klass,
        substr(regexp_replace(code, '[^0-9A-Za-z]', '', 'g'), 5) AS national FROM old
      WHERE code NOT IN (SELECT kood FROM served)
    ),
    s AS (
      SELECT kood, ord, left(regexp_replace(kood, '[^0-9A-Za-z]', '', 'g'), 4) AS klass,
        substr(regexp_replace(kood, '[^0-9A-Za-z]', '', 'g'), 5) AS national FROM served
    ),
    pairs AS (
      SELECT rev2, rev21, row_number() OVER () AS n FROM read_csv(${data('nace_rev2_to_rev21.csv')},
        header = true, columns = {'rev2': 'VARCHAR', 'rev21': 'VARCHAR', 'partial': 'VARCHAR'})
    ),
    target AS (
      SELECT o.code, o.national, arg_min(p.rev21, (
        CASE WHEN p.rev21 = p.rev2 THEN 0 WHEN left(p.rev21, 3) = left(p.rev2, 3) THEN 1
          WHEN left(p.rev21, 2) = left(p.rev2, 2) THEN 2 ELSE 3 END, -p.n)) AS klass
      FROM o JOIN pairs p ON p.rev2 = o.klass WHERE p.rev21 IN (SELECT klass FROM s) GROUP BY ALL
    )
    SELECT t.code, arg_min(s.kood, (s.national <> t.national, -s.ord)) AS kood
    FROM target t JOIN s ON s.klass = t.klass GROUP BY t.code`);
  return new Map(rows.getRowObjectsJson().map((r) => [String(r.code), String(r.kood)]));
}

describe('retired editions map forward onto the served leaves', () => {
  it('NO: every SN2007 five-digit code maps as an independent DuckDB computation over the real files says', async () => {
    const ref = loadReference('NO');
    await servedTable(ref.activityLeaves.map((l) => l.kood));
    const expected = await expectedForward(
      `SELECT i.code FROM (SELECT unnest(classificationItems) AS i
         FROM read_json(${data('no_sn2007_ssb_klass_version501.json')})) WHERE i.level = '5'`,
    );
    expect(expected.size).toBeGreaterThan(800);
    expect(new Map([...ref.activityForward].sort())).toEqual(new Map([...expected].sort()));
  });

  it("NO: SN2007 62.010 (NACE Rev. 2 62.01) is SN2025 62.10; today's 84.110 is never mapped", () => {
    const ref = loadReference('NO');
    expect(ref.activityForward.get('62.010')).toBe('62.10');
    // SN2007 43.221 (plumbing) stays in class 43.22, which NACE Rev. 2.1 kept.
    expect(ref.activityForward.get('43.221')).toBe('43.22');
    expect(ref.activityForward.has('84.110')).toBe(false);
    for (const kood of ref.activityForward.values()) {
      expect(ref.activityLeaves.some((l) => l.kood === kood)).toBe(true);
    }
  });

  it('SE: every SNI 2007 detaljgrupp maps as the independent DuckDB computation says', async () => {
    const ref = loadReference('SE');
    await servedTable(ref.activityLeaves.map((l) => l.kood));
    const expected = await expectedForward(
      `SELECT column1 AS code FROM read_csv(${data('se_sni2007_detaljgrupp_scb.csv')}, delim = ';', header = false,
         skip = 3, all_varchar = true, encoding = 'latin-1') WHERE regexp_full_match(column1, '\\d{5}')`,
    );
    expect(expected.size).toBeGreaterThan(200);
    expect(new Map([...ref.activityForward].sort())).toEqual(new Map([...expected].sort()));
  });

  it('SE: SNI 2007 62010 is SNI 2025 62100, 70220 is 70200; a code of both editions is not mapped', () => {
    const ref = loadReference('SE');
    expect(ref.activityForward.get('62010')).toBe('62100');
    expect(ref.activityForward.get('70220')).toBe('70200');
    expect(ref.activityForward.has('01110')).toBe(false);
  });

  it('PL: every PKD 2007 podklasa maps as the independent DuckDB computation says', async () => {
    const ref = loadReference('PL');
    await servedTable(ref.activityLeaves.map((l) => l.kood));
    const expected = await expectedForward(
      `SELECT symbol AS code FROM read_csv(${data('pl_pkd2007_gus.csv')}, delim = ';', header = true,
         all_varchar = true) WHERE regexp_full_match(symbol, '\\d\\d\\.\\d\\d\\.[A-Z]')`,
    );
    expect(expected.size).toBeGreaterThan(100);
    expect(new Map([...ref.activityForward].sort())).toEqual(new Map([...expected].sort()));
  });

  it('PL: PKD 2007 62.01.Z is PKD 2025 62.10.B "Pozostała działalność w zakresie programowania" (no Z in 62.10: the remainder, not 62.10.A games); 63.11.Z is 63.10.D (its group), not 60.20.Z television; 01.11.Z is kept', () => {
    const ref = loadReference('PL');
    expect(ref.activityForward.get('62.01.Z')).toBe('62.10.B');
    expect(ref.activityForward.get('63.11.Z')).toBe('63.10.D');
    expect(ref.activityForward.get('74.10.Z')).toBe('74.14.Z');
    expect(ref.activityForward.get('70.22.Z')).toBe('70.20.Z');
    expect(ref.activityForward.has('01.11.Z')).toBe(false);
  });

  it('PL: the PKD 2007 rows of a real REGON report resolve onto PKD 2025 leaves', () => {
    // test/fixtures/real/PL/bir/BIR11OsPrawnaPkd-inner-gusapi.xml (provenance in that folder's SOURCES.md).
    const xml = readFileSync(
      new URL('../fixtures/real/PL/bir/BIR11OsPrawnaPkd-inner-gusapi.xml', import.meta.url),
      'utf8',
    );
    const record =
      /<praw_pkdWersja>(\d+)<\/praw_pkdWersja>\s*<praw_pkdKod>(\w+)<\/praw_pkdKod>\s*<praw_pkdNazwa>([^<]*)</g;
    const rows = [...xml.matchAll(record)].map((m) => {
      const raw = m[2] ?? '';
      return { version: m[1], code: `${raw.slice(0, 2)}.${raw.slice(2, 4)}.${raw.slice(4)}`, name: m[3] };
    });
    expect(rows.map((r) => [r.version, r.code])).toEqual([
      ['2007', '74.30.Z'],
      ['2007', '74.20.Z'],
      ['2007', '74.10.Z'],
    ]);
    const ref = loadReference('PL');
    const leaf = (code: string) => ref.activityLeaves.find((l) => l.kood === code);
    const served = rows.map((r) => ref.activityForward.get(r.code) ?? leaf(r.code)?.kood);
    // 74.30 and 74.20 kept their codes and activity in PKD 2025 (REGON's name is GUS's, in capitals);
    // PKD 2007 74.10.Z was split by NACE Rev. 2.1 into 74.11-74.14: the remainder, 74.14 "other specialised
    // design", by the documented rule.
    expect(served).toEqual(['74.30.Z', '74.20.Z', '74.14.Z']);
    expect(rows.slice(0, 2).map((r) => leaf(r.code)?.label.toUpperCase())).toEqual(
      rows.slice(0, 2).map((r) => r.name),
    );
  });

  it.each([
    ['LV', false],
    ['LT', true],
    ['FI', false],
  ] as const)(
    '%s: every NACE Rev. 2 class maps as the independent DuckDB computation says',
    async (c, dotted) => {
      const ref = loadReference(c);
      await servedTable(ref.activityLeaves.map((l) => l.kood));
      const code = dotted ? 'Code' : `replace(Code, '.', '')`;
      const expected = await expectedForward(
        `SELECT ${code} AS code FROM read_csv(${data('nace_rev2_en_eurostat.csv')}, delim = ';', header = true,
         quote = '"', all_varchar = true) WHERE regexp_full_match(Code, '\\d\\d\\.\\d\\d')`,
      );
      expect(expected.size).toBeGreaterThan(100);
      expect(new Map([...ref.activityForward].sort())).toEqual(new Map([...expected].sort()));
      expect(ref.activityForward.get(dotted ? '62.01' : '6201')).toBe(dotted ? '62.10' : '6210');
    },
  );

  it("EE: every EMTAK 2008 code maps through Statistics Estonia's table as DuckDB computes it", async () => {
    const ref = loadReference('EE');
    await servedTable(ref.activityLeaves.map((l) => l.kood));
    const rows = await conn.runAndReadAll(`
      WITH t AS (SELECT emtak2008 AS old, emtak2025 AS new, row_number() OVER () AS n
        FROM read_csv(${data('emtak_2008_to_2025.csv')}, header = true, all_varchar = true))
      SELECT old, arg_min(new, n) AS kood FROM t
      WHERE new IN (SELECT kood FROM served) AND old NOT IN (SELECT kood FROM served) GROUP BY old`);
    const expected = new Map(rows.getRowObjectsJson().map((r) => [String(r.old), String(r.kood)]));
    expect(expected.size).toBeGreaterThan(100);
    expect(new Map([...ref.activityForward].sort())).toEqual(new Map([...expected].sort()));
  });

  it.each(COUNTRY_CODES)(
    '%s: /filters names the served edition, and says so where older codes map forward',
    (c) => {
      const ref = loadReference(c);
      const note = INDUSTRY_EDITION_NOTES[c];
      expect(note.startsWith(`Edition: ${ref.activityEdition}`)).toBe(true);
      expect(note.includes('mapped forward')).toBe(ref.activityForward.size > 0);
    },
  );
});

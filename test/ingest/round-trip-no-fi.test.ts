import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { runIngest } from '../../ingest/official/run-ingest.ts';
import { extractZip } from '../../ingest/official/zip.ts';
import { CARRIED, compareCountry, type CompareResult } from './compare-snapshots.ts';
import { roundTrip } from './helpers/round-trip.ts';

/*
 * The ground-truth test of the NO and FI adapters: the shared test world is written out as BRREG's and
 * PRH's files, those are ingested, and the result must equal the world on every field the files carry
 * (compare-snapshots.ts lists what is not carried).
 */

const COUNTRIES = ['NO', 'FI'] as const;
const rt = roundTrip(COUNTRIES);

describe.each(COUNTRIES)('%s: world -> official files -> ingest', (country) => {
  it('yields exactly the world companies and history rows', () => {
    const r = rt.results.get(country)!;
    expect(r.worldRows).toBeGreaterThan(0);
    expect({ missing: r.missing, extra: r.extra, rows: r.ingestedRows }).toEqual({
      missing: 0,
      extra: 0,
      rows: r.worldRows,
    });
    expect({ missing: r.history.missing, extra: r.history.extra }).toEqual({ missing: 0, extra: 0 });
    expect(r.history.ingestedRows).toBe(r.history.worldRows);
  });

  it('agrees with the world on every field the official files carry', () => {
    const r = rt.results.get(country)!;
    const differences = [
      ...r.columns,
      ...r.history.columns.map((c) => ({ ...c, column: `history.${c.column}` })),
    ]
      .filter((c) => c.different > 0)
      .map((c) => ({ column: c.column, different: c.different, of: c.compared, examples: c.examples }));
    expect(differences).toEqual([]);
  });

  it('compares every carried field on real rows, and leaves out exactly the documented ones', () => {
    const r = rt.results.get(country)!;
    expect(r.columns.filter((c) => c.compared === 0).map((c) => c.column)).toEqual([]);
    const notCarried = Object.entries(CARRIED[country] ?? {})
      .filter(([, rule]) => rule === 'not carried')
      .map(([col]) => col);
    expect(r.columns.filter((c) => notCarried.includes(c.column))).toEqual([]);
  });
});

describe('NO: the quirks the writer plants are met', () => {
  it('has the employee snapshot as the one history period, and annual accounts, sub-unit and board data', () => {
    const r = rt.results.get('NO')!;
    expect(r.history.worldRows).toBeGreaterThan(0);
    const filled = async (sql: string) => Number((await rt.rows(sql))[0]?.['n']);
    return Promise.all([
      filled(
        `SELECT count(*)::INTEGER AS n FROM read_parquet('${path.join(rt.ingestedSnapshot, 'NO', 'companies.parquet')}')
         WHERE annual_report_year IS NOT NULL AND kapital IS NOT NULL`,
      ),
      filled(
        `SELECT count(*)::INTEGER AS n FROM read_parquet('${path.join(rt.ingestedSnapshot, 'NO', 'companies.parquet')}') c,
           unnest(c.contacts) AS u(x) WHERE x."source" = 'no_subunit'`,
      ),
      filled(
        `SELECT count(*)::INTEGER AS n FROM read_parquet('${path.join(rt.ingestedSnapshot, 'NO', 'companies.parquet')}')
         WHERE staatus = 'N' AND source_status = 'konkurs'`,
      ),
    ]).then((counts) => expect(counts.every((n) => n > 0)).toBe(true));
  });

  it("writes the world SN2025 leaves as BRREG's five-digit codes, and every company's activities compare", async () => {
    const file = path.join(rt.tmp, 'official', 'NO', 'enheter_alle.json.gz');
    const [written] = await rt.rows(
      `SELECT count(*) FILTER (WHERE NOT regexp_full_match(e.naeringskode1.kode, '\\d\\d\\.\\d{3}'))::INTEGER AS odd,
         count(*) FILTER (WHERE left(e.naeringskode1.kode, 5) <> left(w.emtak[1].kood, 5))::INTEGER AS other_class,
         count(*)::INTEGER AS n
       FROM read_json('${file}', format = 'array') e
         JOIN read_parquet('${path.join(rt.worldSnapshot, 'NO', 'companies.parquet')}') w
         ON w.registrikood = e.organisasjonsnummer::VARCHAR
       WHERE len(w.emtak) > 0`,
    );
    expect(written).toMatchObject({ odd: 0, other_class: 0 });
    expect(Number(written?.['n'])).toBeGreaterThan(0);
    const r = rt.results.get('NO')!;
    const emtak = r.columns.find((c) => c.column === 'emtak')!;
    expect(emtak.compared).toBe(r.worldRows);
  });

  it('writes kommunenummer of earlier structures, which the ingest maps back to the world kommune', async () => {
    const file = path.join(rt.tmp, 'official', 'NO', 'enheter_alle.json.gz');
    const [written] = await rt.rows(
      `SELECT count(*) FILTER (WHERE e.forretningsadresse.kommunenummer <> w.ehak_kood)::INTEGER AS old
       FROM read_json('${file}', format = 'array') e
         JOIN read_parquet('${path.join(rt.worldSnapshot, 'NO', 'companies.parquet')}') w
         ON w.registrikood = e.organisasjonsnummer::VARCHAR`,
    );
    expect(Number(written?.['old'])).toBeGreaterThan(0);
    expect(rt.results.get('NO')!.columns.find((c) => c.column === 'ehak_kood')?.different).toBe(0);
  });

  it('counts the orphaned sub-unit, skips closed sub-units, resigned members and auditors', async () => {
    const rejects = rt.report
      .rejectRows()
      .map((r) => `${String(r['country'])} ${String(r['file'])}: ${String(r['reason'])}`);
    expect(rejects).toContain('NO underenheter_alle.json.gz: sub-units for a code not in the register file');
    const [skipped] = await rt.rows(
      `SELECT count(*) FILTER (WHERE p.roll = 'REVI' OR p.nimi LIKE 'Tidligere %')::INTEGER AS n,
         count(*) FILTER (WHERE regexp_matches(p.nimi, '\\d{4}-\\d{2}-\\d{2}'))::INTEGER AS dates
       FROM read_parquet('${path.join(rt.ingestedSnapshot, 'NO', 'companies.parquet')}') c, unnest(c.people) AS u(p)`,
    );
    expect(skipped).toEqual({ n: 0, dates: 0 });
  });
});

describe('NO: the same world through the CSV download of enheter', () => {
  let csv: CompareResult;
  let written = '';
  beforeAll(async () => {
    // The folder as an operator who took the CSV download has it: the units as CSV, the rest unchanged.
    const from = path.join(rt.tmp, 'official-csv');
    fs.cpSync(path.join(rt.tmp, 'official', 'NO'), path.join(from, 'NO'), { recursive: true });
    fs.rmSync(path.join(from, 'NO', 'enheter_alle.json.gz'));
    const store = new SnapshotStore(path.join(rt.tmp, 'data-csv'));
    const result = await runIngest({ store, countries: ['NO'], from, report: new IngestReport() });
    csv = await compareCountry(rt.conn, 'NO', rt.worldSnapshot, store.snapshotDir(result.snapshotId));
    const zlib = await import('node:zlib');
    written = zlib.gunzipSync(fs.readFileSync(path.join(from, 'NO', 'enheter_alle.csv.gz'))).toString('utf8');
  }, 180_000);

  it('writes the real header, every value quoted, list values on lines of their own', () => {
    const header = written.slice(0, written.indexOf('\n'));
    expect(header.startsWith('"organisasjonsnummer","navn","organisasjonsform.kode"')).toBe(true);
    expect(header).toContain('"registrertIMvaRegisteret"');
    expect(header).toContain('"registreringsdatoenhetsregisteret"');
    expect(written).toMatch(/"Drift av [^"]*,\nog det som står i forbindelse\nmed dette\."/);
    expect(written).toContain(',"",');
  });

  it('yields exactly the world companies and agrees on every carried field, as the JSON does', () => {
    expect({ missing: csv.missing, extra: csv.extra, rows: csv.ingestedRows }).toEqual({
      missing: 0,
      extra: 0,
      rows: csv.worldRows,
    });
    const differences = [
      ...csv.columns,
      ...csv.history.columns.map((c) => ({ ...c, column: `history.${c.column}` })),
    ]
      .filter((c) => c.different > 0)
      .map((c) => ({ column: c.column, different: c.different, of: c.compared, examples: c.examples }));
    expect(differences).toEqual([]);
    expect(csv.columns.filter((c) => c.compared === 0).map((c) => c.column)).toEqual([]);
  });
});

describe('FI: the quirks the writer plants are met', () => {
  it('writes the bulk as one JSON array on a single line, inside a zip', async () => {
    const json = path.join(rt.tmp, 'all_companies.json');
    await extractZip(path.join(rt.tmp, 'official', 'FI', 'all_companies.zip'), json);
    const text = fs.readFileSync(json, 'utf8');
    expect(text.startsWith('[{')).toBe(true);
    expect(text.trimEnd().split('\n')).toHaveLength(1);
  });

  it('writes TOL 2008 (TOIMI3) beside TOL 2025 codes, both read back as the world class', async () => {
    const json = path.join(rt.tmp, 'all_companies.json');
    const sets = await rt.rows(
      `SELECT mainBusinessLine.typeCodeSet AS s, count(*)::INTEGER AS n FROM read_json('${json}', format = 'array')
       WHERE mainBusinessLine IS NOT NULL GROUP BY ALL ORDER BY s`,
    );
    expect(sets.map((r) => r['s'])).toEqual(['TOIMI3', 'TOIMI4']);
    expect(rt.results.get('FI')!.columns.find((c) => c.column === 'emtak')?.different).toBe(0);
  });

  it('derives every state from tradeRegisterStatus and the current situations', async () => {
    const states = await rt.rows(
      `SELECT staatus, source_status, count(*)::INTEGER AS n
       FROM read_parquet('${path.join(rt.ingestedSnapshot, 'FI', 'companies.parquet')}') GROUP BY ALL ORDER BY ALL`,
    );
    expect(states.map((r) => `${String(r['staatus'])} ${String(r['source_status'])}`)).toEqual(
      expect.arrayContaining(['K 4', 'L SELTILA', 'N KONK', 'R 1']),
    );
  });
});

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractZip } from '../../ingest/official/zip.ts';
import { CARRIED } from './compare-snapshots.ts';
import { roundTrip } from './helpers/round-trip.ts';

/*
 * The ground-truth test of every adapter: the shared test world (a canonical snapshot) is written out as
 * the registers' official files, those files are ingested, and the result must equal the world on every
 * field the files carry (compare-snapshots.ts lists what is not carried; docs/ingest.md explains why).
 */

const COUNTRIES = ['EE', 'LV', 'LT'] as const;
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

  it('compares every carried field on real rows, not on an empty selection', () => {
    const r = rt.results.get(country)!;
    const empty = r.columns.filter((c) => c.compared === 0).map((c) => c.column);
    expect(empty).toEqual([]);
    // What is left out is exactly the documented list (docs/ingest.md, "Not carried").
    const notCarried = Object.entries(CARRIED[country] ?? {})
      .filter(([, rule]) => rule === 'not carried')
      .map(([col]) => col);
    expect(r.columns.filter((c) => notCarried.includes(c.column))).toEqual([]);
  });
});

describe('the quirks the writers plant are met and counted', () => {
  it('counts the duplicated debtor, the unknown debtor code and the duplicated JAR row as rejected rows', () => {
    const rejects = rt.report
      .rejectRows()
      .map((r) => `${String(r['country'])} ${String(r['file'])}: ${String(r['reason'])}`);
    expect(rejects).toEqual(
      expect.arrayContaining([
        'EE maksuvolglaste_nimekiri.csv: duplicate registration code (one row kept)',
        'EE maksuvolglaste_nimekiri.csv: debtor rows for a code not in the register file',
        'LT JAR_IREGISTRUOTI.csv: duplicate registration code (one row kept)',
      ]),
    );
  });

  it('writes EMTAK 2008 codes (version 2) beside EMTAK 2025 ones, which the ingest maps onto the 2025 tree', async () => {
    const json = path.join(rt.tmp, 'yldandmed.json');
    await extractZip(path.join(rt.tmp, 'official', 'EE', 'ettevotja_rekvisiidid__yldandmed.json.zip'), json);
    const versions = (
      await rt.conn.runAndReadAll(
        `SELECT a.emtak_versioon AS v, count(*)::INTEGER AS n
         FROM read_json('${json}', format = 'array') j, unnest(j.yldandmed.teatatud_tegevusalad) AS u(a)
         GROUP BY ALL ORDER BY v`,
      )
    ).getRowObjectsJson();
    expect(versions.map((r) => Number(r['v']))).toEqual([2, 3]);
    // And the round trip above holds for them: every activity came back as the world's 2025 leaf.
    expect(rt.results.get('EE')!.columns.find((c) => c.column === 'emtak')?.different).toBe(0);
  });

  it('leaves some EE companies without a legal form in yldandmed, whose code then comes from lihtandmed', async () => {
    const dir = path.join(rt.tmp, 'official', 'EE');
    const csv = path.join(rt.tmp, 'lihtandmed-check.csv');
    const json = path.join(rt.tmp, 'yldandmed-check.json');
    await extractZip(path.join(dir, 'ettevotja_rekvisiidid__lihtandmed.csv.zip'), csv);
    await extractZip(path.join(dir, 'ettevotja_rekvisiidid__yldandmed.json.zip'), json);
    const [row] = await rt.rows(
      `SELECT count(*)::INTEGER AS n FROM read_csv('${csv}', delim = ';', header = true, all_varchar = true) l
       WHERE l.ariregistri_kood NOT IN (SELECT ariregistri_kood::VARCHAR FROM read_json('${json}', format = 'array')
         WHERE yldandmed.oiguslik_vorm IS NOT NULL)`,
    );
    expect(Number(row?.['n'])).toBeGreaterThan(0);
    // ...and the round trip above holds for them: oiguslik_vorm came back as the world's code everywhere.
    expect(rt.results.get('EE')!.columns.find((c) => c.column === 'oiguslik_vorm')?.different).toBe(0);
  });

  it('writes no personal code into the snapshot', async () => {
    const found = (
      await rt.rows(
        `SELECT count(*)::INTEGER AS n FROM read_parquet('${path.join(rt.ingestedSnapshot, 'EE', 'companies.parquet')}') c,
           unnest(c.people) AS u(p) WHERE regexp_matches(p.nimi, '\\d{11}')`,
      )
    )[0];
    expect(Number(found?.['n'])).toBe(0);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractZip } from '../../ingest/official/zip.ts';
import { CARRIED } from './compare-snapshots.ts';
import { roundTrip } from './helpers/round-trip.ts';

/*
 * The round trip of the Swedish and Polish adapters: the shared test world is written out as Bolagsverket,
 * SCB, KRS, REGON and CEIDG files, ingested, and must equal the world on every carried field, including
 * the rows without a code (SE sole traders) and SE's workplaces.
 */

const COUNTRIES = ['SE', 'PL'] as const;
const rt = roundTrip(COUNTRIES);

describe.each(COUNTRIES)('%s: world -> official files -> ingest', (country) => {
  it('yields exactly the world companies, coded and code-less', () => {
    const r = rt.results.get(country)!;
    expect(r.worldRows).toBeGreaterThan(0);
    expect({ missing: r.missing, extra: r.extra, rows: r.ingestedRows }).toEqual({
      missing: 0,
      extra: 0,
      rows: r.worldRows,
    });
    expect(r.unkeyed.ingestedRows).toBe(r.unkeyed.worldRows);
    expect(r.unkeyed.unmatched).toBe(0);
  });

  it('agrees with the world on every field the official files carry', () => {
    const r = rt.results.get(country)!;
    const differences = [
      ...r.columns,
      ...(r.workplaces?.columns ?? []).map((c) => ({ ...c, column: `workplaces.${c.column}` })),
    ]
      .filter((c) => c.different > 0)
      .map((c) => ({ column: c.column, different: c.different, of: c.compared, examples: c.examples }));
    expect(differences).toEqual([]);
  });

  it('compares every carried field on real rows, and leaves out exactly the documented list', () => {
    const r = rt.results.get(country)!;
    expect(r.columns.filter((c) => c.compared === 0).map((c) => c.column)).toEqual([]);
    const notCarried = Object.entries(CARRIED[country] ?? {})
      .filter(([, rule]) => rule === 'not carried')
      .map(([col]) => col);
    expect(r.columns.filter((c) => notCarried.includes(c.column))).toEqual([]);
  });
});

describe('SE specifics', () => {
  it('gives back every workplace, row for row', () => {
    const w = rt.results.get('SE')!.workplaces!;
    expect(w.worldRows).toBeGreaterThan(0);
    expect({ missing: w.missing, extra: w.extra, rows: w.ingestedRows }).toEqual({
      missing: 0,
      extra: 0,
      rows: w.worldRows,
    });
  });

  it('holds sole traders with an empty code, never for sale, and keeps no personal number', async () => {
    const file = path.join(rt.ingestedSnapshot, 'SE', 'companies.parquet');
    const [r] = await rt.rows(
      `SELECT count(*) FILTER (WHERE registrikood = '')::INTEGER AS empty,
         count(*) FILTER (WHERE oiguslik_vorm = '10')::INTEGER AS sole,
         count(*) FILTER (WHERE is_sole_trader AND NOT not_for_sale)::INTEGER AS sold
       FROM read_parquet('${file}')`,
    );
    expect(r!['empty']).toBeGreaterThan(0);
    expect(r!['empty']).toBe(r!['sole']);
    expect(r!['sold']).toBe(0);
    // The SCB file carries personal numbers (19/20 + yymmdd + 4 digits); none reaches any snapshot file.
    for (const f of ['companies.parquet', 'workplaces.parquet']) {
      const [n] = await rt.rows(
        `SELECT count(*)::INTEGER AS n FROM read_parquet('${path.join(rt.ingestedSnapshot, 'SE', f)}') t
         WHERE regexp_matches(CAST(t AS VARCHAR), '(19|20)\\d{10}')`,
      );
      expect(n!['n']).toBe(0);
    }
  });

  it('reads SCB files that are ISO-8859-1, not UTF-8', async () => {
    const je = path.join(rt.tmp, 'je.txt');
    await extractZip(path.join(rt.tmp, 'official', 'SE', 'scb_bulkfil.zip'), je);
    const bytes = fs.readFileSync(je);
    // SCB writes names in capitals: Å, Ä, Ö are single bytes 0xC5, 0xC4, 0xD6 in ISO-8859-1, not UTF-8.
    expect(bytes.includes(0xc5) || bytes.includes(0xc4) || bytes.includes(0xd6)).toBe(true);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
  });

  it('names Statistics Sweden in every company source text', async () => {
    const [r] = await rt.rows(
      `SELECT count(*) FILTER (WHERE se_register."source" NOT LIKE '%Statistics Sweden (SCB)%')::INTEGER AS n
       FROM read_parquet('${path.join(rt.ingestedSnapshot, 'SE', 'companies.parquet')}')`,
    );
    expect(r!['n']).toBe(0);
  });
});

describe('PL specifics', () => {
  it('maps the PKD 2007 rows the writer planted forward onto the world PKD 2025 leaves, leaving none out', async () => {
    const dir = path.join(rt.tmp, 'official', 'PL');
    const files = fs.readdirSync(dir).filter((f) => f.startsWith('pl_regon_'));
    const planted =
      files
        .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
        .join('')
        .split('&lt;praw_pkdWersja&gt;2007&lt;').length - 1;
    expect(planted).toBeGreaterThan(0);
    expect(rt.report.rejectsOf('PL').filter((r) => r.reason.startsWith('PKD code'))).toEqual([]);
  });

  it('holds sole traders (CEIDG) under their REGON, never for sale, and KRS entities with the annual-report flags', async () => {
    const [r] = await rt.rows(
      `SELECT count(*) FILTER (WHERE is_sole_trader AND NOT not_for_sale)::INTEGER AS sold,
         count(*) FILTER (WHERE is_sole_trader AND registrikood <> pl_regon)::INTEGER AS sole_not_regon,
         count(*) FILTER (WHERE length(registrikood) = 10 AND annual_report_filed IS NULL)::INTEGER AS krs_unknown,
         count(*) FILTER (WHERE length(registrikood) <> 10 AND annual_report_filed IS NOT NULL)::INTEGER AS other_known
       FROM read_parquet('${path.join(rt.ingestedSnapshot, 'PL', 'companies.parquet')}')`,
    );
    expect(r).toEqual({ sold: 0, sole_not_regon: 0, krs_unknown: 0, other_known: 0 });
  });
});

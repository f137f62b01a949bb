import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CountryCode } from '../../src/contract/countries.ts';
import { DataProblem } from '../../ingest/official/errors.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { runIngest } from '../../ingest/official/run-ingest.ts';
import { fixtureIngest, type Row } from './helpers/fixture-ingest.ts';
import { writeZip } from '../../ingest/official/zip.ts';

/*
 * Hand-made official files (test/fixtures/official/<CC>/) with the real headers and the awkward cases the
 * formats reference lists: BOM, quoted delimiters, embedded newlines, decimal commas and no-break spaces,
 * thousands of EUR, lats, amended filings, duplicates, mixed classification versions, ended entries,
 * pre-2021 ATVK codes, drifting Sodra headers, RC's delimiter change. test/fixtures/official/broken/ holds
 * damaged versions: each must fail the run with the file, line and column, and leave the live snapshot.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/official/', import.meta.url));
const { scratch, ingest, rows, companies } = fixtureIngest('official');

async function history(dir: string, code: string): Promise<Row[]> {
  return rows(
    `SELECT period, granularity, turnover, employees, state_taxes, labour_taxes, as_of
     FROM read_parquet('${path.join(dir, 'history.parquet')}') WHERE registrikood = '${code}'
     ORDER BY "year", quarter, "month", granularity`,
  );
}

/** A copy of a country's fixture folder with some files replaced by their broken versions. */
function damaged(country: CountryCode, replace: Record<string, string | null>): string {
  const dir = scratch('from');
  fs.cpSync(path.join(FIXTURES, country), dir, { recursive: true });
  for (const [name, broken] of Object.entries(replace)) {
    fs.rmSync(path.join(dir, name), { force: true });
    if (broken) fs.copyFileSync(path.join(FIXTURES, 'broken', broken), path.join(dir, name));
  }
  return dir;
}

describe('EE fixtures', () => {
  let dir: string;
  let report: IngestReport;
  beforeAll(async () => ({ dir, report } = await ingest('EE', path.join(FIXTURES, 'EE'))), 60_000);

  it('reads a BOM file with a quoted ";" in a name and a newline inside a quoted address', async () => {
    const c = (await companies(dir)).get('10000001')!;
    expect(c['arinimi']).toBe('Kala; Liha OÜ');
    // RIK's address text carries no postcode: lihtandmed's is appended (issue 28).
    expect(c['aadress_text']).toBe('Harju maakond, Tallinn, Kesklinna linnaosa, Tartu mnt 1, 10111');
    expect(c['postcode']).toBe('10111');
    expect(c['esmaregistreerimise_kpv']).toBe('2015-01-02');
    expect(c['ehak_kood']).toBe('0298');
    expect(c['ehak_nimetus']).toBe('Kesklinna linnaosa');
  });

  it('keeps the first of a duplicated code and drops a code with a wrong check digit', async () => {
    const all = await companies(dir);
    expect([...all.keys()].sort()).toEqual(['10000001', '10000076', '10000142', '10000219', '80000008']);
    const reasons = report.rejectsOf('EE').map((r) => `${r.file}: ${r.reason} (${r.rows})`);
    expect(reasons).toContain(
      'ettevotja_rekvisiidid__lihtandmed.csv: duplicate registration code (one row kept) (1)',
    );
    expect(reasons).toContain(
      'ettevotja_rekvisiidid__lihtandmed.csv: registration code fails "8 digits with a valid check digit" (1)',
    );
  });

  it('maps EMTAK 2008 codes onto EMTAK 2025, skips ended entries and counts unknown codes', async () => {
    const c = (await companies(dir)).get('10000001')!;
    expect(c['emtak']).toEqual([
      { kood: '62101', label: 'Programmeerimine', is_main: true },
      { kood: '68201', label: 'Enda või renditud kinnisvara üürileandmine ja käitus', is_main: false },
    ]);
    expect(
      report.rejectsOf('EE').find((r) => r.reason === 'unmapped EMTAK code 99999 (version 3)')?.action,
    ).toBe('value nulled');
  });

  it('takes only current contacts and capital (not the ended EEK entry), board people without personal codes', async () => {
    const c = (await companies(dir)).get('10000001')!;
    expect(c['contacts']).toEqual([
      { liik: 'EMAIL', sisu: 'info@kalaliha.ee', source: null },
      { liik: 'WWW', sisu: 'www.kalaliha.ee', source: null },
    ]);
    expect([c['kapital'], c['kapital_amount'], c['kapital_currency']]).toEqual(['2500.00 EUR', 2500, 'EUR']);
    expect(c['people']).toEqual([
      {
        nimi: 'Jaan Tamm',
        isiku_tyyp: 'F',
        roll: 'JUHL',
        roll_tekstina: 'Juhatuse liige',
        algus_kpv: '2015-01-02',
      },
      {
        nimi: 'Haldus OÜ',
        isiku_tyyp: 'J',
        roll: 'PROK',
        roll_tekstina: 'Prokurist',
        algus_kpv: '2020-06-01',
      },
    ]);
    expect(
      JSON.stringify(await rows(`SELECT * FROM read_parquet('${path.join(dir, 'companies.parquet')}')`)),
    ).not.toMatch(/38001010000|48001010000/);
  });

  it('turns the EMTA quarters into history, empty quarters left out, and derives the latest figures', async () => {
    const h = await history(dir, '10000001');
    expect(h.map((r) => r['period'])).toEqual([
      '2025-Q1',
      '2025-Q2',
      '2025-Q3',
      '2025-Q4',
      '2026-Q1',
      '2026-Q3',
    ]);
    expect(h[0]).toEqual({
      period: '2025-Q1',
      granularity: 'quarterly',
      turnover: 10000,
      employees: 4,
      state_taxes: 1000.5,
      labour_taxes: 800,
      as_of: '2025-03-31',
    });
    const c = (await companies(dir)).get('10000001')!;
    // 2025-Q4 + 2026-Q1 + (2026-Q2 missing) + 2026-Q3; growth against a missing quarter is null.
    expect(c['last_4_quarters_turnover_sum']).toBe(42600);
    expect(c['last_quarter_turnover']).toBe(15600);
    expect(c['last_quarter_turnover_growth_pct']).toBeNull();
  });

  it('reads the debtor list (decimal comma, no-break space, a duplicate, an unknown code) into has_tax_debt', async () => {
    const all = await companies(dir);
    expect(all.get('10000142')?.['has_tax_debt']).toBe(true);
    expect(all.get('10000001')?.['has_tax_debt']).toBe(false);
  });

  it('takes the latest non-consolidated annual report, figures under taidetud_aruanne_report_id', async () => {
    const all = await companies(dir);
    const a = all.get('10000001')!;
    expect([
      a['annual_report_year'],
      a['annual_revenue'],
      a['annual_net_profit'],
      a['annual_equity'],
      a['annual_total_assets'],
    ]).toEqual([2025, 600000, -2500.5, 43725, 149020]);
    const b = all.get('10000142')!;
    expect([b['annual_revenue'], b['annual_total_assets']]).toEqual([75000, null]);
  });
});

describe('LV fixtures', () => {
  let dir: string;
  let report: IngestReport;
  beforeAll(async () => ({ dir, report } = await ingest('LV', path.join(FIXTURES, 'LV'))), 60_000);

  it('reads the real sample rows: "" escapes, the single-space closed flag, terminated rows', async () => {
    const all = await companies(dir);
    expect(all.get('40008234596')?.['arinimi']).toBe('"House of Glory"');
    expect(all.get('40008234596')?.['staatus']).toBe('R');
    expect(all.get('41502039692')?.['arinimi']).toBe('IK "D.Luxe"');
    expect(all.get('41502039692')?.['is_sole_trader']).toBe(true);
    const closed = all.get('41202013815')!;
    expect([closed['staatus'], closed['source_status'], closed['staatus_tekstina']]).toEqual([
      'K',
      'L',
      'Izslēgts no reģistra',
    ]);
  });

  it('keeps ATVK codes the tree knows, takes the unit from the address, counts what stays unmapped', async () => {
    const all = await companies(dir);
    expect([all.get('40003000001')?.['ehak_kood'], all.get('40003000001')?.['ehak_nimetus']]).toEqual([
      '0001000',
      'Rīga',
    ]);
    // A pre-2021 code (0050000) whose address names a unit of the tree (`Daugavpils, …`): placed there.
    expect([all.get('41502039692')?.['ehak_kood'], all.get('41502039692')?.['ehak_nimetus']]).toEqual([
      '0002000',
      'Daugavpils',
    ]);
    // No ATVK transition table was found in public material: a pre-2021 code whose address names no unit
    // is nulled and counted.
    const atvk = report
      .rejectsOf('LV')
      .filter((r) => r.reason.startsWith('unmapped ATVK code'))
      .map((r) => [r.reason, r.rows, r.action]);
    expect(atvk).toEqual([['unmapped ATVK code 0885162', 1, 'value nulled']]);
  });

  it('keeps a quoted ";" and a newline inside an address', async () => {
    expect((await companies(dir)).get('40003000001')?.['aadress_text']).toBe(
      'Rīga; Brīvības iela 1\nk-2, LV-1010',
    );
  });

  it('reads officers by column name, in any order', async () => {
    const people = (await companies(dir)).get('40003000001')?.['people'];
    expect(people).toEqual([
      {
        nimi: 'Jānis Bērziņš',
        isiku_tyyp: 'F',
        roll: 'CHAIR_OF_BOARD',
        roll_tekstina: 'Valdes priekšsēdētājs',
        algus_kpv: '2005-05-05',
      },
      {
        nimi: 'Līga Ozola',
        isiku_tyyp: 'F',
        roll: 'BOARD_MEMBER',
        roll_tekstina: 'Valdes loceklis',
        algus_kpv: '2019-01-01',
      },
    ]);
  });

  it('keeps the amended statement, converts lats and thousands to euro, starts history in 2006', async () => {
    expect(await history(dir, '40003000001')).toEqual([
      {
        period: '2012',
        granularity: 'annual',
        turnover: 100000,
        employees: 3,
        state_taxes: null,
        labour_taxes: null,
        as_of: '2012-12-31',
      },
      {
        period: '2024',
        granularity: 'annual',
        turnover: 500000,
        employees: 5,
        state_taxes: null,
        labour_taxes: null,
        as_of: '2024-12-31',
      },
      {
        period: '2025',
        granularity: 'annual',
        turnover: 650000,
        employees: 7,
        state_taxes: null,
        labour_taxes: null,
        as_of: '2025-12-31',
      },
    ]);
    const as = (await companies(dir)).get('40003000002')!;
    expect([
      as['annual_revenue'],
      as['annual_net_profit'],
      as['annual_equity'],
      as['annual_total_assets'],
    ]).toEqual([2500000, -150000, 4000000, 9000000]);
  });

  it('reads VID with ";" (sniffed), a padded Rev. 2 code, a dotted code, and steps over "?" and "0000"', async () => {
    const all = await companies(dir);
    expect(all.get('40003000001')?.['emtak']).toEqual([
      { kood: '6210', label: 'Computer programming activities', is_main: true },
    ]);
    expect(all.get('40003000002')?.['emtak']).toEqual([
      { kood: '5611', label: 'Restaurant activities', is_main: true },
    ]);
    expect(all.get('40003000003')?.['emtak']).toEqual([]);
    // Counted per code as VID wrote it (an earlier year's usable code was taken where there was one).
    const nace = report
      .rejectsOf('LV')
      .filter((r) => r.reason.startsWith('unmapped NACE code'))
      .map((r) => r.reason)
      .sort();
    expect(nace).toEqual(['unmapped NACE code 0000', 'unmapped NACE code ?']);
  });

  it('derives VAT, insolvency (N) and liquidation (L) from the optional files', async () => {
    const all = await companies(dir);
    expect([all.get('40003000001')?.['vat_active'], all.get('40003000001')?.['vat_number']]).toEqual([
      true,
      'LV40003000001',
    ]);
    // An IK is a person: VAT-registered, but no number is shown.
    expect([all.get('41502039692')?.['vat_active'], all.get('41502039692')?.['vat_number']]).toEqual([
      true,
      null,
    ]);
    expect(all.get('40003000002')?.['staatus']).toBe('N');
    expect(all.get('40003000003')?.['staatus']).toBe('L');
  });
});

describe('LT fixtures', () => {
  let dir: string;
  beforeAll(async () => ({ dir } = await ingest('LT', path.join(FIXTURES, 'LT'))), 60_000);

  it('reads the pipe-delimited JAR sample row and maps stat_kodas by the official list', async () => {
    const all = await companies(dir);
    expect(all.get('110003978')?.['arinimi']).toBe('Uždaroji akcinė bendrovė "Lietkompexim"');
    expect(all.get('110003978')?.['asukoht']).toBe('Vilnius, S. Stanevičiaus g. 95');
    expect(all.get('302222222')?.['arinimi']).toBe('MB "Pipe | Line"');
    const statuses = Object.fromEntries(
      [...all].map(([k, v]) => [k, `${String(v['source_status'])}:${String(v['staatus'])}`]),
    );
    expect(statuses).toEqual({
      '110003978': '0:R',
      '301011561': '1:T',
      '302222222': '5:N',
      '303333333': '7:L',
      '304444444': '9:L',
      '305555555': '10:K',
    });
  });

  it('finds the municipality from Sodra or from the address', async () => {
    const all = await companies(dir);
    expect(all.get('110003978')?.['ehak_nimetus']).toBe('Vilniaus m. sav.');
    expect(all.get('302222222')?.['ehak_nimetus']).toBe('Alytaus r. sav.');
    expect(all.get('305555555')?.['ehak_nimetus']).toBe('Klaipėdos m. sav.');
  });

  it('reads Sodra files by their (key) headers in any order, with a BOM and decimal commas', async () => {
    const h = await history(dir, '110003978');
    expect(h.filter((r) => r['granularity'] === 'monthly').map((r) => [r['period'], r['employees']])).toEqual(
      [
        ['2023-12', 12],
        ['2025-11', 14],
        ['2025-12', 15],
      ],
    );
  });

  it('reads RC statements with "," (2021) and "|" (2024), keeps the latest amendment, skips empty turnover', async () => {
    const annual = (await history(dir, '110003978')).filter((r) => r['granularity'] === 'annual');
    expect(annual.map((r) => [r['period'], r['turnover'], r['as_of']])).toEqual([
      ['2021', 120000, '2021-03-31'],
      ['2024', 150000, '2024-03-31'],
      ['2025', null, '2025-12-31'],
    ]);
    expect(await history(dir, '301011561')).toEqual([
      {
        period: '2023-12',
        granularity: 'monthly',
        turnover: null,
        employees: 3,
        state_taxes: null,
        labour_taxes: null,
        as_of: '2023-12-31',
      },
    ]);
  });

  it('sums VMI taxes over types at the latest month: December is annual, an incomplete year is year to date', async () => {
    const taxes = (await history(dir, '110003978')).filter((r) => r['state_taxes'] !== null);
    expect(taxes.map((r) => [r['period'], r['granularity'], r['state_taxes'], r['as_of']])).toEqual([
      ['2025', 'annual', 2500.25, '2025-12-31'],
      ['2026', 'year_to_date', 1750.5, '2026-09-30'],
    ]);
  });

  it('takes current VMI activities (6-digit and dotted EVRK, Rev. 2 mapped) and the VAT registration', async () => {
    const all = await companies(dir);
    expect(all.get('110003978')?.['emtak']).toEqual([
      { kood: '62.10', label: 'Computer programming activities', is_main: true },
      {
        kood: '62.20',
        label: 'Computer consultancy and computer facilities management activities',
        is_main: false,
      },
    ]);
    expect([all.get('110003978')?.['vat_active'], all.get('110003978')?.['vat_number']]).toEqual([
      true,
      'LT100003978317',
    ]);
    expect([all.get('301011561')?.['vat_active'], all.get('301011561')?.['vat_number']]).toEqual([
      false,
      null,
    ]);
  });
});

describe('broken files: exit 1 with file, line and column; the live snapshot keeps serving', () => {
  async function expectFailure(country: CountryCode, from: string, message: RegExp): Promise<void> {
    const dataDir = scratch('data');
    const { store } = await ingest(country, path.join(FIXTURES, country), dataDir);
    const live = store.currentId();
    const err = await runIngest({ store, countries: [country], from, report: new IngestReport() }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DataProblem);
    expect((err as Error).message).toMatch(message);
    expect(store.currentId()).toBe(live);
    expect(store.list()).toEqual([live]);
  }

  it('a truncated CSV (cut inside a quoted name)', async () => {
    await expectFailure(
      'EE',
      damaged('EE', { 'ettevotja_rekvisiidid__lihtandmed.csv': 'ettevotja_rekvisiidid__lihtandmed.csv' }),
      /^ettevotja_rekvisiidid__lihtandmed\.csv line 5, column 1 \(nimi\): unquoted value/,
    );
  }, 60_000);

  it('a truncated zip', async () => {
    const from = damaged('EE', {});
    const csv = path.join(from, 'ettevotja_rekvisiidid__lihtandmed.csv');
    await writeZip(`${csv}.zip`, csv, 'ettevotja_rekvisiidid__lihtandmed.csv');
    fs.rmSync(csv);
    const bytes = fs.readFileSync(`${csv}.zip`);
    fs.writeFileSync(`${csv}.zip`, bytes.subarray(0, bytes.length - 30));
    await expectFailure(
      'EE',
      from,
      // The input check names every problem of the folder before anything is read.
      /^EE: ettevotja_rekvisiidid__lihtandmed\.csv\.zip not a readable zip archive/,
    );
  }, 60_000);

  it('a truncated JSON file', async () => {
    await expectFailure(
      'EE',
      damaged('EE', { 'ettevotja_rekvisiidid__yldandmed.json': 'ettevotja_rekvisiidid__yldandmed.json' }),
      /^ettevotja_rekvisiidid__yldandmed\.json line 44, column \d+: the JSON ends inside a value/,
    );
  }, 60_000);

  it('a changed header', async () => {
    await expectFailure(
      'LV',
      damaged('LV', { 'register.csv': 'register.csv' }),
      /^register\.csv line 1, column 14: header column is "closed_flag", expected "closed"/,
    );
  }, 60_000);

  it('an empty file', async () => {
    await expectFailure(
      'LV',
      damaged('LV', { 'officers.csv': 'officers.csv' }),
      /^LV: officers\.csv is empty \(0 bytes\)/,
    );
  }, 60_000);

  it('an unquoted delimiter (too many fields) in a row of three: over the reject share', async () => {
    await expectFailure(
      'LT',
      damaged('LT', { 'JAR_FA_RODIKLIAI_PLNA_2021.csv': 'JAR_FA_RODIKLIAI_PLNA_2021.csv' }),
      /^JAR_FA_RODIKLIAI_PLNA_2021\.csv line 3: 1 of 3 rows rejected \(more than 1\.0%\): 1 malformed, first: too many fields/,
    );
  }, 60_000);

  it('too many rows with values that do not convert', async () => {
    await expectFailure(
      'LT',
      damaged('LT', { 'JAR_IREGISTRUOTI.csv': 'JAR_IREGISTRUOTI.csv' }),
      /^JAR_IREGISTRUOTI\.csv line 4, column 4 \(ja_reg_data\): 1 of 7 rows have values that do not convert/,
    );
  }, 60_000);

  it('the principal file missing', async () => {
    await expectFailure('LT', damaged('LT', { 'JAR_IREGISTRUOTI.csv': null }), /LT: no RC JAR_IREGISTRUOTI/);
  }, 60_000);
});

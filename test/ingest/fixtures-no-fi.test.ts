import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CountryCode } from '../../src/contract/countries.ts';
import { DataProblem } from '../../ingest/official/errors.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { runIngest } from '../../ingest/official/run-ingest.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { fixtureIngest, type Row } from './helpers/fixture-ingest.ts';
import { writeZip } from '../../ingest/official/zip.ts';

/*
 * Hand-made BRREG and PRH files (test/fixtures/official/NO and FI, see the README there) with the real
 * keys and the awkward cases: the reference's real sample rows, SN2025 codes onto SN2007, a bankrupt
 * estate also under avvikling, booleans as strings, roles of persons and of units, resigned members and
 * auditors, closed and orphaned sub-units, group and foreign-currency accounts; PRH's ended names, forms,
 * situations and VAT entries, TOIMI3 codes, a postal address before the street one. Damaged copies must
 * fail the run with the file, line and column and leave the live snapshot serving.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/official/', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/regdata.mjs', import.meta.url));
const { scratch, ingest, rows, companies } = fixtureIngest('no-fi');

function rejects(report: IngestReport): string[] {
  return report
    .rejectRows()
    .map(
      (r) =>
        `${String(r['file'])}: ${String(r['reason'])} (${String(r['rows'])}, ${String(r['first_case'])})`,
    );
}

/** A copy of a country's fixture folder, changed by `edit` (which gets the copy's path). */
function copy(country: CountryCode, edit: (dir: string) => void = () => {}): string {
  const dir = scratch('from');
  fs.cpSync(path.join(FIXTURES, country), dir, { recursive: true });
  edit(dir);
  return dir;
}

describe('NO fixtures', () => {
  let dir: string;
  let report: IngestReport;
  let c: Map<string, Row>;
  beforeAll(async () => {
    // The units gzipped as BRREG ships them, the rest as plain JSON: both are read.
    const from = copy('NO', (d) => {
      const file = path.join(d, 'enheter_alle.json');
      fs.writeFileSync(`${file}.gz`, zlib.gzipSync(fs.readFileSync(file)));
      fs.rmSync(file);
    });
    ({ dir, report } = await ingest('NO', from));
    c = await companies(dir);
  }, 60_000);

  it('reads the real sample row: form, dates, address with the fylke, VAT, capital, contacts', () => {
    const row = c.get('810034882')!;
    expect(row).toMatchObject({
      arinimi: 'SANDNES ELEKTRISKE AS',
      oiguslik_vorm: 'AS',
      oiguslik_vorm_tekstina: 'Aksjeselskap',
      staatus: 'R',
      source_status: null,
      esmaregistreerimise_kpv: '1995-02-19',
      ehak_kood: '1108',
      ehak_nimetus: 'Sandnes',
      asukoht: 'Langgata 12, 4306 SANDNES',
      aadress_text: 'Langgata 12, 4306 SANDNES, Rogaland',
      vat_active: true,
      vat_number: null,
      kapital: '100000 NOK',
      kapital_amount: 100000,
      is_sole_trader: false,
    });
    // The unit's own contacts, then those of its open sub-unit (the closed one is left out).
    expect(row['contacts']).toEqual([
      { liik: 'EMAIL', sisu: 'post@sandneselektriske.no', source: null },
      { liik: 'WWW', sisu: 'www.sandneselektriske.no', source: null },
      { liik: 'TEL', sisu: '+47 51 60 00 00', source: null },
      { liik: 'TEL', sisu: '+47 51 60 00 01', source: 'no_subunit' },
      { liik: 'MOB', sisu: '+47 950 00 001', source: 'no_subunit' },
    ]);
  });

  it('serves SN2025 codes in SN2025 (never mapped back to SN2007), and counts a code the tree lacks', () => {
    // No national leaf of 43.21, 62.10 or 56.11 is known, so each code is served as its NACE Rev. 2.1 class:
    // 62.100 stays 62.10 (Rev. 2's 62.01 is gone), 56.110 stays 56.11 (Rev. 2.1 split 56.10).
    expect(c.get('810034882')!['emtak']).toEqual([
      { kood: '43.21', label: 'Electrical installation', is_main: true },
      { kood: '62.10', label: 'Computer programming activities', is_main: false },
    ]);
    expect(c.get('923609016')!['emtak']).toEqual([
      { kood: '56.11', label: 'Restaurant activities', is_main: true },
    ]);
    expect(rejects(report)).toContain(
      'enheter_alle.json.gz: næringskode not in the SN2025 tree (activity left out) (1, 00.000)',
    );
  });

  it('derives the state from the flags: konkurs wins over underAvvikling; a reconstruction date means T', () => {
    expect(c.get('914778271')).toMatchObject({
      staatus: 'N',
      source_status: 'konkurs',
      staatus_tekstina: 'Konkurs',
    });
    expect(c.get('986352325')).toMatchObject({
      staatus: 'T',
      source_status: 'underRekonstruksjonsforhandlingDato',
    });
    expect(c.get('914778271')!['kapital']).toBe('33333.33 NOK');
  });

  it('takes an ENK with string booleans, a postal address only and a kommune the reference lacks', () => {
    expect(c.get('923609016')).toMatchObject({
      is_sole_trader: true,
      vat_active: true,
      vat_number: null,
      ehak_kood: null,
      asukoht: 'c/o Nordmann, Postboks 12, 9999 UKJENT',
      contacts: [{ liik: 'MOB', sisu: '+47 912 34 567', source: null }],
      // harRegistrertAntallAnsatte false beside antallAnsatte 0: "no registered employees" (issue 28).
      last_quarter_employees_number: 0,
      postcode: '9999',
    });
  });

  it('keeps the first of a duplicated number and drops a failed check digit; counts orphans', () => {
    expect([...c.keys()].sort()).toEqual(['810034882', '914778271', '923609016', '986352325']);
    expect(c.get('810034882')!['arinimi']).toBe('SANDNES ELEKTRISKE AS');
    expect(rejects(report)).toEqual(
      expect.arrayContaining([
        'enheter_alle.json.gz: duplicate registration code (one row kept) (1, null)',
        'underenheter_alle.json: sub-units for a code not in the register file (1, null)',
        'roller_totalbestand.json: roles for a code not in the register file (1, null)',
        'regnskap.json: accounts for a code not in the register file (1, null)',
      ]),
    );
  });

  it('lists board people and units from the roles file, without resigned members, auditors or birth dates', () => {
    expect(c.get('810034882')!['people']).toEqual([
      {
        nimi: 'Ola Nordmann',
        isiku_tyyp: 'F',
        roll: 'DAGL',
        roll_tekstina: 'Daglig leder/ adm.direktør',
        algus_kpv: null,
      },
      {
        nimi: 'Kari Marie Hansen',
        isiku_tyyp: 'F',
        roll: 'LEDE',
        roll_tekstina: 'Styrets leder',
        algus_kpv: null,
      },
      { nimi: 'HOLDING AS', isiku_tyyp: 'J', roll: 'MEDL', roll_tekstina: 'Styremedlem', algus_kpv: null },
    ]);
    expect(c.get('810034882')!['search_people']).toBe('ola nordmann | kari marie hansen | holding as');
    expect(c.get('923609016')!['people']).toEqual([
      { nimi: 'Kari Nordmann', isiku_tyyp: 'F', roll: 'INNH', roll_tekstina: 'Innehaver', algus_kpv: null },
    ]);
  });

  it('takes the latest company accounts in NOK (not the group, not USD) and the employee snapshot', async () => {
    expect(c.get('810034882')).toMatchObject({
      annual_report_year: 2025,
      annual_revenue: 12500000,
      annual_net_profit: 850000,
      annual_equity: 3100000,
      annual_total_assets: 7400000,
      last_quarter_employees_number: 8,
    });
    // The 2025 accounts are in USD: left out and counted; the 2023 ones (numbers as strings) are used.
    expect(c.get('986352325')).toMatchObject({
      annual_report_year: 2023,
      annual_revenue: 4100000,
      annual_net_profit: -150000,
    });
    expect(rejects(report)).toContain(
      'regnskap: accounts in a currency other than NOK or without a period end (left out) (1, USD)',
    );
    const history = await rows(
      `SELECT registrikood, period, granularity, employees, as_of FROM read_parquet('${path.join(dir, 'history.parquet')}')
       ORDER BY registrikood`,
    );
    expect(history).toEqual([
      {
        registrikood: '810034882',
        period: '2025',
        granularity: 'snapshot',
        employees: 8,
        as_of: '2025-10-15',
      },
      // A zero without registration dates is dated the run's day.
      expect.objectContaining({ registrikood: '923609016', granularity: 'snapshot', employees: 0 }),
    ]);
  });
});

describe('NO from the units file alone', () => {
  it('builds every unit; sub-unit contacts, people and accounts are absent, not invented', async () => {
    const from = copy('NO', (d) => {
      for (const f of ['roller_totalbestand.json', 'underenheter_alle.json', 'regnskap.json']) {
        fs.rmSync(path.join(d, f));
      }
    });
    const { dir } = await ingest('NO', from);
    const alone = await companies(dir);
    expect([...alone.keys()].sort()).toEqual(['810034882', '914778271', '923609016', '986352325']);
    expect(alone.get('810034882')).toMatchObject({
      arinimi: 'SANDNES ELEKTRISKE AS',
      oiguslik_vorm: 'AS',
      ehak_kood: '1108',
      vat_number: null,
      people: [],
      annual_report_year: null,
      last_quarter_employees_number: 8,
    });
    expect(alone.get('810034882')!['contacts']).toEqual([
      { liik: 'EMAIL', sisu: 'post@sandneselektriske.no', source: null },
      { liik: 'WWW', sisu: 'www.sandneselektriske.no', source: null },
      { liik: 'TEL', sisu: '+47 51 60 00 00', source: null },
    ]);
  }, 60_000);
});

describe('NO employee counts: a zero is zero whatever the flag, an absent count is unknown', () => {
  it('keeps antallAnsatte 0 beside harRegistrertAntallAnsatte true and beside false (issue 28)', async () => {
    const from = copy('NO', (d) => {
      const file = path.join(d, 'enheter_alle.json');
      const text = fs
        .readFileSync(file, 'utf8')
        .replace('"antallAnsatte": 8,', '"antallAnsatte": 0,')
        // A count without its registration dates (as real units carry it) is dated the run's day.
        .replace('"registreringsdatoAntallAnsatteEnhetsregisteret": "2025-10-15",', '')
        .replace('"registreringsdatoantallansatteNAVAaregisteret": "2025-10-12",', '');
      fs.writeFileSync(file, text);
    });
    const store = new SnapshotStore(scratch('data'));
    const result = await runIngest({
      store,
      countries: ['NO'],
      from,
      report: new IngestReport(),
      now: () => new Date('2026-11-01T06:00:00Z'),
    });
    const dir = store.countryDir(result.snapshotId, 'NO');
    const c = await companies(dir);
    expect(c.get('810034882')!['last_quarter_employees_number']).toBe(0);
    // 923609016 has harRegistrertAntallAnsatte false beside antallAnsatte 0: "no registered employees", 0.
    expect(c.get('923609016')!['last_quarter_employees_number']).toBe(0);
    // 914778271 has no antallAnsatte key: unknown.
    expect(c.get('914778271')!['last_quarter_employees_number']).toBeNull();
    const history = await rows(
      `SELECT registrikood, employees, as_of FROM read_parquet('${path.join(dir, 'history.parquet')}')
       ORDER BY registrikood`,
    );
    expect(history).toEqual([
      { registrikood: '810034882', employees: 0, as_of: '2026-11-01' },
      { registrikood: '923609016', employees: 0, as_of: '2026-11-01' },
    ]);
  }, 60_000);
});

describe('NO kommunenummer of earlier structures', () => {
  it('maps a 2020-2023 code and a pre-2020 code through SSB changes; counts an unmappable code per code', async () => {
    const from = copy('NO', (d) => {
      const file = path.join(d, 'enheter_alle.json');
      const text = fs
        .readFileSync(file, 'utf8')
        // Oslo's unit written with Halden's pre-2020 code, Bergen's with its 2020-2023 code, and the
        // unknown 9999 with Tysfjord's, which split in 2020.
        .replace('"kommunenummer": "0301"', '"kommunenummer": "0101"')
        .replace('"kommunenummer": "4601"', '"kommunenummer": "1201"')
        .replace('"kommunenummer": "9999"', '"kommunenummer": "1850"');
      fs.writeFileSync(file, text);
    });
    const { dir, report } = await ingest('NO', from);
    const c = await companies(dir);
    expect(c.get('914778271')).toMatchObject({ ehak_kood: '3101', ehak_nimetus: 'Halden' });
    expect(c.get('986352325')).toMatchObject({ ehak_kood: '4601', ehak_nimetus: 'Bergen' });
    expect(c.get('923609016')).toMatchObject({ ehak_kood: null, ehak_nimetus: null });
    expect(rejects(report)).toContain('enheter_alle.json: unmapped kommunenummer code 1850 (1, 923609016)');
    expect(rejects(report).filter((r) => r.includes('unmapped kommunenummer'))).toHaveLength(1);
  }, 60_000);
});

describe('FI fixtures', () => {
  let report: IngestReport;
  let c: Map<string, Row>;
  beforeAll(async () => {
    // Zipped as the API answers.
    const from = copy('FI');
    await writeZip(
      path.join(from, 'all_companies.zip'),
      path.join(from, 'all_companies.json'),
      'all_companies.json',
    );
    fs.rmSync(path.join(from, 'all_companies.json'));
    let dir: string;
    ({ dir, report } = await ingest('FI', from));
    c = await companies(dir);
  }, 60_000);

  it('reads the real v3 record: current name, form, street address, TOIMI4 line, VAT, website', () => {
    expect(c.get('2646674-9')).toMatchObject({
      arinimi: 'Wolt Oy',
      oiguslik_vorm: '16',
      oiguslik_vorm_tekstina: 'Osakeyhtiö',
      staatus: 'R',
      source_status: '1',
      esmaregistreerimise_kpv: '2014-10-07',
      ehak_kood: '091',
      ehak_nimetus: 'Helsinki',
      asukoht: 'Pohjoinen Rautatiekatu 21, 00100 HELSINKI',
      aadress_text: 'Pohjoinen Rautatiekatu 21, 00100 HELSINKI, Uusimaa',
      vat_active: true,
      vat_number: null,
      contacts: [{ liik: 'WWW', sisu: 'wolt.com', source: null }],
      emtak: [{ kood: '9699', label: 'Other personal service activities n.e.c.', is_main: true }],
      people: [],
      is_sole_trader: false,
    });
  });

  it('derives the state: current KONK, SELTILA after an ended KONK, SANE, tradeRegisterStatus 4', () => {
    const state = (code: string) => {
      const r = c.get(code)!;
      return [r['staatus'], r['source_status'], r['staatus_tekstina']];
    };
    expect(state('0112038-9')).toEqual(['N', 'KONK', 'Konkurssissa']);
    expect(state('1234567-1')).toEqual(['L', 'SELTILA', 'Selvitystilassa']);
    expect(state('1927400-1')).toEqual(['T', 'SANE', 'Yrityssaneerauksessa']);
    expect(state('0737546-2')).toEqual(['K', '4', 'Lakannut']);
  });

  it('prefers the street address to a postal one listed first, skips an auxiliary name and an ended VAT entry', () => {
    expect(c.get('0112038-9')).toMatchObject({
      arinimi: 'Konkurssi Data Oy',
      asukoht: 'Hämeenkatu 5 B, 33100 TAMPERE',
      vat_active: false,
      vat_number: null,
      // TOIMI3 62010 is TOL 2008 (NACE Rev. 2 6201), mapped to Rev. 2.1 6210.
      emtak: [{ kood: '6210', label: 'Computer programming activities', is_main: true }],
    });
    expect(c.get('0737546-2')!['oiguslik_vorm']).toBe('16');
  });

  it('counts an unknown municipality, an unknown line of business, a bad check digit and a duplicate', () => {
    expect(c.get('1234567-1')).toMatchObject({
      ehak_kood: null,
      emtak: [],
      asukoht: 'Kauppakatu 1, 99999 TUNTEMATON',
    });
    expect([...c.keys()].sort()).toEqual(['0112038-9', '0737546-2', '1234567-1', '1927400-1', '2646674-9']);
    expect(rejects(report)).toEqual(
      expect.arrayContaining([
        'all_companies.json: municipalityCode not a kunta of the reference (ehak_kood left empty) (1, 999)',
        'all_companies.json: TOL code not a NACE Rev. 2.1 class nor mapped from Rev. 2 (activity left out) (1, 00000)',
        'all_companies.json: duplicate registration code (one row kept) (1, null)',
      ]),
    );
  });
});

describe('broken NO and FI files: exit 1 with file, line and column; the live snapshot keeps serving', () => {
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

  it('a truncated gzip download of the units', async () => {
    const from = copy('NO', (d) => {
      const file = path.join(d, 'enheter_alle.json');
      const gz = zlib.gzipSync(fs.readFileSync(file));
      fs.writeFileSync(`${file}.gz`, gz.subarray(0, Math.floor(gz.length * 0.6)));
      fs.rmSync(file);
    });
    await expectFailure(
      'NO',
      from,
      /^enheter_alle\.json\.gz line \d+, column \d+: the gzip stream ends early/,
    );
  }, 60_000);

  it('a structural break in the roles file', async () => {
    const from = copy('NO', (d) => {
      const file = path.join(d, 'roller_totalbestand.json');
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      // Line 9 closes an object with a bracket.
      lines[8] = lines[8]!.replace('}', ']');
      fs.writeFileSync(file, lines.join('\n'));
    });
    await expectFailure(
      'NO',
      from,
      /^roller_totalbestand\.json line 9, column \d+: malformed JSON: unexpected '\]'/,
    );
  }, 60_000);

  it('the PRH array cut inside a string (on its single line)', async () => {
    const from = copy('FI', (d) => {
      const file = path.join(d, 'all_companies.json');
      const text = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, text.slice(0, text.indexOf('Hämeenkatu') + 4));
    });
    await expectFailure('FI', from, /^all_companies\.json line 1, column \d+: the JSON ends inside a value/);
  }, 60_000);

  it('a truncated PRH zip', async () => {
    const from = copy('FI');
    const zip = path.join(from, 'all_companies.zip');
    await writeZip(zip, path.join(from, 'all_companies.json'), 'all_companies.json');
    fs.rmSync(path.join(from, 'all_companies.json'));
    const bytes = fs.readFileSync(zip);
    fs.writeFileSync(zip, bytes.subarray(0, bytes.length - 30));
    await expectFailure('FI', from, /all_companies\.zip:? not a readable zip archive/);
  }, 60_000);

  it('the principal file missing', async () => {
    const from = copy('NO', (d) => fs.rmSync(path.join(d, 'enheter_alle.json')));
    await expectFailure('NO', from, /NO: no Enhetsregisteret units/);
  }, 60_000);

  it('through the real CLI: exit 1, the file named, the live snapshot untouched', async () => {
    const dataDir = scratch('data');
    const { store } = await ingest('FI', path.join(FIXTURES, 'FI'), dataDir);
    const live = store.currentId();
    const from = copy('FI', (d) => fs.writeFileSync(path.join(d, 'all_companies.json'), ''));
    const result = await promisify(execFile)(process.execPath, [BIN, 'ingest', 'FI', '--from', from], {
      env: { ...process.env, REGDATA_DATA_DIR: dataDir },
    }).then(
      () => ({ code: 0, stderr: '', stdout: '' }),
      (e: { code: number; stderr: string; stdout: string }) => e,
    );
    expect(result.code).toBe(1);
    expect(`${result.stdout}${result.stderr}`).toMatch(
      // The folder check finds it before anything is read, and names it with every other problem.
      /all_companies\.json is empty \(0 bytes\)/,
    );
    expect(store.currentId()).toBe(live);
  }, 60_000);
});

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CountryCode } from '../../src/contract/countries.ts';
import { DataProblem } from '../../ingest/official/errors.ts';
import type { IngestReport } from '../../ingest/official/report.ts';
import { fixtureIngest, type Row } from './helpers/fixture-ingest.ts';

/*
 * Hand-made Swedish and Polish official files (test/fixtures/official/SE, PL) with the real headers and
 * the awkward cases the formats reference lists (PL: as `regdata harvest PL` stores the services' answers);
 * `<CC>/broken/` holds damaged versions, each of which must fail the run naming the file, line and column
 * while the live snapshot keeps serving.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/official/', import.meta.url));
const { scratch, ingest, rows, companies: byCode } = fixtureIngest('se-pl');

/** A copy of a country's fixtures with some files replaced (by their `broken/` twin, or by given text). */
function damaged(country: CountryCode, replace: Record<string, string | Buffer>): string {
  const dir = scratch('from');
  fs.mkdirSync(dir);
  for (const name of fs.readdirSync(path.join(FIXTURES, country))) {
    const file = path.join(FIXTURES, country, name);
    if (fs.statSync(file).isFile()) fs.copyFileSync(file, path.join(dir, name));
  }
  for (const [name, content] of Object.entries(replace)) {
    if (content === 'broken')
      fs.copyFileSync(path.join(FIXTURES, country, 'broken', name), path.join(dir, name));
    else fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

describe('SE fixtures', () => {
  let dir: string;
  let report: IngestReport;
  beforeAll(async () => ({ dir, report } = await ingest('SE', path.join(FIXTURES, 'SE'))), 60_000);

  it('joins Bolagsverket, the ISO-8859-1 SCB files and the FDB extract: names, trade names, states, seat', async () => {
    const all = await byCode(dir);
    expect([...all.keys()].sort()).toEqual([
      '5560123456',
      '5566778899',
      '5569998882',
      '8024005673',
      '9697001239',
    ]);
    const a = all.get('5566778899')!;
    expect([a['arinimi'], a['staatus'], a['source_status'], a['staatus_tekstina']]).toEqual([
      'Exempel Sverige AB',
      'L',
      'LI-AVOMFO',
      'Likvidation pågår',
    ]);
    expect((a['se_register'] as Row)['trade_names']).toEqual(['Exempel Konsult']);
    // Bolagsverket's address as it publishes it (its town in capitals), not the FDB answer's.
    expect([a['asukoht'], a['aadress_text'], a['ehak_kood']]).toEqual([
      'Box 1, 111 22 STOCKHOLM',
      'Box 1, 111 22 STOCKHOLM, Stockholms län',
      '0180',
    ]);
    expect([a['se_employees_band'], a['se_turnover_band'], a['vat_number']]).toEqual([5, 6, null]);
    // Reklamsparrtyp 22: both blocks.
    expect([a['marketing_optout'], a['phone_optout']]).toEqual([true, true]);
    const b = all.get('9697001239')!;
    // Å and Ö come through ISO-8859-1; the trade name on a row of its own; a finished bankruptcy is no state.
    expect([b['arinimi'], b['staatus'], (b['se_register'] as Row)['trade_names']]).toEqual([
      'Åkesson & Öberg HB',
      'R',
      ['Öbergs Bygg'],
    ]);
    expect(b['emtak']).toEqual([{ kood: '43341', label: 'Måleriarbeten', is_main: true }]);
    // The c/o line Bolagsverket publishes is kept, first, as a Swedish address is written.
    expect(b['asukoht']).toBe('c/o Åkesson, Storgatan 1, 411 01 GÖTEBORG');
    expect([all.get('5560123456')!['staatus'], all.get('5560123456')!['source_status']]).toEqual([
      'K',
      'KKAV-AVORG',
    ]);
    // Only in SCB: the name as SCB writes it, in capitals.
    expect(all.get('8024005673')!['arinimi']).toBe('IDROTTSFÖRENINGEN SKOGEN');
  });

  it("serves the organisation only Bolagsverket lists, SCB's fields unknown (NULL), never false or zero", async () => {
    const c = (await byCode(dir)).get('5569998882')!;
    expect({
      name: c['arinimi'],
      form: [c['oiguslik_vorm'], c['oiguslik_vorm_tekstina']],
      state: [c['staatus'], c['staatus_tekstina'], c['source_status']],
      scb: [
        c['marketing_optout'],
        c['phone_optout'],
        c['se_employees_band'],
        c['se_turnover_band'],
        c['vat_active'],
        c['ehak_kood'],
        (c['se_register'] as Row)['activity_start_date'],
        (c['se_register'] as Row)['source'],
      ],
      emtak: c['emtak'],
      sale: [c['is_sole_trader'], c['not_for_sale']],
    }).toEqual({
      name: 'Bara Hos Bolagsverket AB',
      form: ['AB-ORGFO', 'Aktiebolag'],
      state: ['R', 'Registrerad', null],
      scb: [null, null, null, null, null, null, null, null],
      emtak: [],
      sale: [false, false],
    });
  });

  it('holds the sole trader with an empty code, not for sale, and without the personal number', async () => {
    const sole = await rows(
      `SELECT * FROM read_parquet('${path.join(dir, 'companies.parquet')}') WHERE registrikood = ''`,
    );
    expect(
      sole.map((r) => [r['arinimi'], r['is_sole_trader'], r['not_for_sale'], r['phone_optout']]),
    ).toEqual([['Anna Svensson Frisör', true, true, true]]);
    expect(JSON.stringify(sole)).not.toMatch(/197001011234/);
  });

  it('holds a sole trader only Bolagsverket lists (PERSON-IDORG), not for sale, SCB fields NULL', async () => {
    const scbName = 'scb_bulkfil_JE_20260605T055245_1.txt';
    const lines = fs
      .readFileSync(path.join(FIXTURES, 'SE', scbName))
      .toString('latin1')
      .split('\n');
    const kept = lines.filter((l) => !l.includes('\t197001011234\t'));
    expect(kept).toHaveLength(lines.length - 1);
    const { dir: d } = await ingest(
      'SE',
      damaged('SE', { [scbName]: Buffer.from(kept.join('\n'), 'latin1') }),
    );
    const sole = await rows(
      `SELECT * FROM read_parquet('${path.join(d, 'companies.parquet')}') WHERE registrikood = ''`,
    );
    expect(
      sole.map((r) => [
        r['arinimi'],
        r['is_sole_trader'],
        r['not_for_sale'],
        r['oiguslik_vorm'],
        r['marketing_optout'],
        r['asukoht'],
      ]),
    ).toEqual([['Anna Svensson Frisör', true, true, null, null, 'Kyrkogatan 3, 753 10 UPPSALA']]);
    expect(JSON.stringify(sole)).not.toMatch(/197001011234/);
  });

  it('reads workplaces by name: postcodes spaced, one main per company, orphans and bad numbers counted', async () => {
    const w = await rows(
      `SELECT registrikood, cfar_nr, is_main, is_active, visit_postcode, visit_town, marketing_optout
       FROM read_parquet('${path.join(dir, 'workplaces.parquet')}') ORDER BY cfar_nr`,
    );
    expect(w).toEqual([
      {
        registrikood: '5566778899',
        cfar_nr: 12345678,
        is_main: true,
        is_active: true,
        visit_postcode: '111 51',
        visit_town: 'STOCKHOLM',
        marketing_optout: true,
      },
      {
        registrikood: '5566778899',
        cfar_nr: 12345679,
        is_main: false,
        is_active: false,
        visit_postcode: '211 22',
        visit_town: 'MALMÖ',
        marketing_optout: false,
      },
      {
        registrikood: '9697001239',
        cfar_nr: 22345678,
        is_main: true,
        is_active: true,
        visit_postcode: '411 01',
        visit_town: 'GÖTEBORG',
        marketing_optout: false,
      },
      // The workplace of the organisation only Bolagsverket lists is its company's.
      {
        registrikood: '5569998882',
        cfar_nr: 32345678,
        is_main: true,
        is_active: true,
        visit_postcode: null,
        visit_town: null,
        marketing_optout: false,
      },
    ]);
  });

  it('serves workplace activity codes in SNI 2025: SNI 2007 62010 mapped forward, 43341 of both editions kept', async () => {
    const w = await rows(
      `SELECT cfar_nr, activity_codes FROM read_parquet('${path.join(dir, 'workplaces.parquet')}') ORDER BY cfar_nr`,
    );
    expect(w.map((r) => [r['cfar_nr'], r['activity_codes']])).toEqual([
      [12345678, ['62100']],
      [12345679, ['62100']],
      [22345678, ['43341']],
      // The workplace of the organisation only Bolagsverket lists: no SNI code in SCB's file.
      [32345678, []],
    ]);
  });

  it('counts every awkward row by reason', () => {
    const reasons = report.rejectsOf('SE').map((r) => `${r.file}: ${r.reason} (${r.rows})`);
    for (const expected of [
      'scb_bulkfil_JE_20260605T055245_1.txt: duplicate registration code (one row kept) (1)',
      'scb_bulkfil_JE_20260605T055245_1.txt: Reklamsparrtyp not a known code (marketing blocks left empty) (1)',
      'scb_bulkfil_JE_20260605T055245_1.txt: SNI code not in the SNI 2025 tree nor mapped forward from SNI 2007 (left out of emtak) (1)',
      'bolagsverket_bulkfil.txt: registreringsdatum or avregistreringsdatum not a date (left empty) (1)',
      "bolagsverket_bulkfil.txt: organisation not in the SCB JE file (served without SCB's fields) (1)",
      'scb_fdb_je_20260605_*.json: size class (Stkl, kod) not 0-16 (left empty) (1)',
      'scb_fdb_je_20260605_*.json: Säteskommun code not a Swedish kommun (ehak_kood left empty) (1)',
      'scb_arbetsstallen_20260605.txt: workplaces for a code not in the register file (1)',
      'scb_arbetsstallen_20260605.txt: workplace without a valid CFAR number (left out) (1)',
    ]) {
      expect(reasons).toContain(expected);
    }
    expect(reasons.some((r) => r.includes('registration code fails'))).toBe(true);
  });
});

describe('PL fixtures', () => {
  let dir: string;
  let report: IngestReport;
  beforeAll(async () => ({ dir, report } = await ingest('PL', path.join(FIXTURES, 'PL'))), 60_000);

  it('builds a KRS company from its extract and REGON report: board without the suspended member, capital, contacts', async () => {
    const c = (await byCode(dir)).get('0000413516')!;
    expect(c['people']).toEqual([
      {
        nimi: 'Anna Nowak',
        isiku_tyyp: 'F',
        roll: 'PREZES ZARZĄDU',
        roll_tekstina: 'Prezes Zarządu',
        algus_kpv: null,
      },
      {
        nimi: 'Ewa Zielińska',
        isiku_tyyp: 'F',
        roll: 'PROKURENT',
        roll_tekstina: 'Prokurent',
        algus_kpv: null,
      },
    ]);
    expect([c['kapital'], c['kapital_amount'], c['ehak_kood'], c['asukoht']]).toEqual([
      '5000.00 PLN',
      5000,
      '3064029',
      'ul. Głogowska 12, 61-626 Poznań',
    ]);
    expect(c['contacts']).toEqual([
      { liik: 'EMAIL', sisu: 'biuro@swlex.pl', source: 'pl_krs' },
      { liik: 'WWW', sisu: 'www.swlex.pl', source: 'pl_krs' },
      { liik: 'TEL', sisu: '+48 61 123 45 67', source: 'pl_regon' },
      { liik: 'MOB', sisu: '+48 601 234 567', source: 'pl_regon' },
    ]);
    // Served in PKD 2025: undotted PKD 2007 codes dotted and mapped forward (70.22.Z -> 70.20.Z), the main
    // activity listed in both editions (6910Z of 2007, 69.10.Z of 2025) kept once, main first.
    expect((c['emtak'] as Row[]).map((e) => [e['kood'], e['is_main']])).toEqual([
      ['69.10.Z', true],
      ['70.20.Z', false],
    ]);
    // Filed for 2025 (the extract is of 2026), no auditor section: audited unknown.
    expect([c['annual_report_filed'], c['annual_report_audited']]).toEqual([true, null]);
  });

  it('derives the states: liquidation from dzial6, a suspension, a resumed suspension, a CEIDG status', async () => {
    const all = await byCode(dir);
    const s = (code: string) => [all.get(code)!['staatus'], all.get(code)!['source_status']];
    expect(s('0000123456')).toEqual(['L', 'W_LIKWIDACJI']);
    expect(s('630123456')).toEqual(['S', 'ZAWIESZONY']);
    expect(s('360501230')).toEqual(['R', 'AKTYWNY']);
    expect(s('999999990')).toEqual(['S', 'ZAWIESZONY']);
    // Filed only for an older year: not filed for the latest closed one.
    const k = all.get('0000123456')!;
    expect([k['annual_report_filed'], k['annual_report_audited'], k['kapital_amount']]).toEqual([
      false,
      false,
      1250000,
    ]);
  });

  it('holds the CEIDG sole trader (old adresDzialanosci spelling) under its REGON, not for sale', async () => {
    const c = (await byCode(dir)).get('999999990')!;
    expect([c['is_sole_trader'], c['not_for_sale'], c['asukoht'], c['aadress_text']]).toEqual([
      true,
      true,
      'ul. Długa 60/3, 01-382 Warszawa',
      'ul. Długa 60/3, 01-382 Warszawa, woj. mazowieckie',
    ]);
    expect(c['contacts']).toEqual([
      { liik: 'EMAIL', sisu: 'piotr@jaworski.pl', source: 'pl_ceidg' },
      { liik: 'MOB', sisu: '+48 501 234 567', source: 'pl_ceidg' },
    ]);
  });

  it('counts extracts without a REGON report and PKD codes of neither edition', () => {
    const reasons = report.rejectsOf('PL').map((r) => `${r.file}: ${r.reason} (${r.rows})`);
    for (const expected of [
      'pl_regon_*.jsonl: KRS extract without a REGON report (REGON fields left empty) (1)',
      'pl_regon_*.jsonl: PKD code neither in PKD 2025 nor mapped forward from PKD 2007 (left out of emtak) (1)',
    ]) {
      expect(reasons).toContain(expected);
    }
    expect(reasons.some((r) => r.includes('another version'))).toBe(false);
  });

  it('takes a company from an extract REGON does not list, and a sole trader from CEIDG alone (held)', async () => {
    const all = await byCode(dir);
    const k = all.get('0000999999')!;
    expect([k['oiguslik_vorm'], k['is_sole_trader'], k['not_for_sale']]).toEqual([null, false, false]);
    const held = [...all.values()].filter((c) => c['is_sole_trader']);
    expect(held.map((c) => [c['registrikood'], c['not_for_sale']]).sort()).toEqual([
      ['000000000', true],
      ['999999990', true],
    ]);
  });

  it('skips an answer cut off by a killed harvest and counts it', async () => {
    const from = damaged('PL', {});
    const file = path.join(from, 'pl_krs_20260601T000000Z_0001.jsonl');
    fs.appendFileSync(file, '{"key":"0000000019/P","kind":"OdpisAktualny","status":200,"body":"{\\"odp');
    const { report: r, dir: d } = await ingest('PL', from);
    expect(r.rejectsOf('PL').map((x) => `${x.file}: ${x.reason} (${x.rows})`)).toContain(
      'pl_krs_*.jsonl: answer cut off at the end of a capture file (a harvest killed mid-write) (1)',
    );
    expect((await byCode(d)).size).toBe((await byCode(dir)).size);
  });
});

describe('a damaged Bolagsverket record', () => {
  it('is rejected with its file and line; the country is still built', async () => {
    const { report, dir } = await ingest('SE', damaged('SE', { 'bolagsverket_bulkfil.txt': 'broken' }));
    const bad = report.rejectsOf('SE').filter((r) => r.reason.startsWith('record ends inside'));
    expect(bad.map((r) => [r.file, r.rows, r.example])).toEqual([
      ['bolagsverket_bulkfil.txt', 1, 'bolagsverket_bulkfil.txt line 5'],
    ]);
    expect((await byCode(dir)).has('5566778899')).toBe(true);
  });
});

describe('damaged SE and PL files fail the run with the file, line and column; the live snapshot stays', () => {
  const cases: [CountryCode, Record<string, string | Buffer>, RegExp][] = [
    [
      'SE',
      { 'scb_bulkfil_JE_20260605T055245_1.txt': 'broken' },
      /^scb_bulkfil_JE_20260605T055245_1\.txt line 4: 1 of 3 rows rejected .*too few fields/,
    ],
    [
      'SE',
      {
        'bolagsverket_bulkfil.txt': fs
          .readFileSync(
            fileURLToPath(new URL('../fixtures/official/SE/bolagsverket_bulkfil.txt', import.meta.url)),
            'utf8',
          )
          .replace('registreringsland', 'land'),
      },
      /^bolagsverket_bulkfil\.txt line 1, column 3: header column is "land", expected "registreringsland"/,
    ],
    [
      'SE',
      { 'scb_fdb_je_20260605_00001.json': '' },
      /^SE: scb_fdb_je_20260605_00001\.json is empty \(0 bytes\)/,
    ],
  ];
  it.each(cases)(
    '%s %o',
    async (country, replace, message) => {
      const dataDir = scratch('live');
      const { store } = await ingest(country, path.join(FIXTURES, country), dataDir);
      const live = store.currentId();
      const error = await ingest(country, damaged(country, replace), dataDir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DataProblem);
      expect((error as Error).message).toMatch(message);
      expect(store.currentId()).toBe(live);
    },
    60_000,
  );
});

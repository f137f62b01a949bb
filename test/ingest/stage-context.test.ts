import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTRIES } from '../../src/contract/countries.ts';
import { loadReference } from '../../ingest/reference/index.ts';
import { SourceFileError } from '../../ingest/official/errors.ts';
import { LV_FILES, REGISTER_HEADER, VID_TAXES_HEADER } from '../../ingest/official/lv/files.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { openSources, planSources } from '../../ingest/official/sources.ts';
import { createStageContext } from '../../ingest/official/stage-context.ts';
import { varchars } from '../../ingest/official/stage-sql.ts';
import { buildCompanies, stageSteps } from '../../ingest/official/stage-steps.ts';
import type { StageContext } from '../../ingest/official/types.ts';

/**
 * The stage context over the real LV sample (test/fixtures/real/LV, SOURCES.md there): a read names its
 * file once, and every check run through the handle it returns is reported under that file.
 */
const REAL_LV = fileURLToPath(new URL('../fixtures/real/LV/', import.meta.url));

let tmp: string;
let instance: DuckDBInstance;
let conn: DuckDBConnection;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-stage-context-'));
  for (const f of [
    'principal/register.csv',
    'enrichments/pdb_nm_komersantu_samaksato_nodoklu_kopsumas_odata.csv',
  ]) {
    fs.copyFileSync(path.join(REAL_LV, f), path.join(tmp, path.basename(f)));
  }
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
afterAll(() => {
  conn?.closeSync();
  instance?.closeSync();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function context(): Promise<StageContext> {
  const { plan, problems } = await planSources('LV', tmp, LV_FILES);
  expect(problems).toEqual([]);
  const report = new IngestReport();
  const workDir = path.join(tmp, 'work');
  const sources = await openSources(plan, workDir, report);
  const reference = loadReference('LV');
  return createStageContext({ conn, country: 'LV', sources, reference, report, now: new Date(), workDir });
}

const count = async (sql: string) => Number((await conn.runAndReadAll(sql)).getRows()[0]?.[0]);

/** The register file's data lines, split by hand: its rows hold no quoted line break. */
const registerLines = () =>
  fs.readFileSync(path.join(REAL_LV, 'principal/register.csv'), 'utf8').trim().split('\n').slice(1);
const registerCodes = () => registerLines().map((l) => l.split(';')[0]!);

const readRegister = (ctx: StageContext) =>
  ctx.read('csv', {
    key: 'register',
    table: 'raw_register',
    delimiter: ';',
    header: REGISTER_HEADER,
    columns: varchars(REGISTER_HEADER),
  });

const readTaxes = (ctx: StageContext, delimiter: string | readonly string[]) =>
  ctx.read('csv', {
    key: 'taxes',
    table: 'raw_vid',
    delimiter,
    header: VID_TAXES_HEADER,
    columns: varchars(VID_TAXES_HEADER),
  });

describe('the stage context', () => {
  it('reads a file by its key as one reported stage and keys its rows under the same name', async () => {
    const ctx = await context();
    const raw = await readRegister(ctx);
    const codes = registerCodes();
    expect(raw).toMatchObject({ name: 'register.csv', table: 'raw_register', present: true });
    expect(ctx.report.stages.map((s) => [s.stage, s.rows])).toEqual([['read register.csv', codes.length]]);
    expect(ctx.report.files).toMatchObject([{ file: 'register.csv', rowsRead: codes.length }]);

    const register = await raw.keyRows('ingest_register', 'regcode', { checkRule: true });
    expect(register).toMatchObject({ name: 'register.csv', table: 'ingest_register' });
    const valid = new Set(codes.filter((c) => COUNTRIES.LV.registrationCode.isValid(c)));
    expect(await count('SELECT count(*) FROM ingest_register')).toBe(valid.size);
    expect(await count("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'raw_register'")).toBe(0);
  });

  it('reports the checks of a handle under its file: nulled values, unmapped codes, orphans', async () => {
    const ctx = await context();
    const register = await (await readRegister(ctx)).keyRows('ingest_register', 'regcode');
    await register.nulled(
      'closed flag set',
      `SELECT count(*) AS n, min(code) AS example FROM ingest_register WHERE nullif(trim(closed), '') IS NOT NULL`,
    );
    const atvk = `SELECT trim(atvk) AS code, count(*) AS n, min(r.code) AS example FROM ingest_register r
      WHERE nullif(trim(atvk), '') IS NOT NULL GROUP BY ALL`;
    await register.perCode('ATVK', atvk);
    await register.perCode('ATVK (all)', atvk, { listAll: true });
    const taxes = await readTaxes(ctx, ',');
    await taxes.orphans('tax rows', { codeSql: 'trim(t."Registracijas_kods")' });
    ctx.file('family_*.jsonl').reject('counted by the stage', 2, 'row dropped', 'x');

    // Independently: the rows' own fields, split by hand (no field of these rows holds a quoted `;`).
    const rows = registerLines().map((l) => l.split(';'));
    const closed = rows.filter((r) => r[13]!.trim() !== '').map((r) => r[0]!);
    const perAtvk = new Map<string, string[]>();
    for (const r of rows) {
      const code = r[19]!.replaceAll('"', '').trim();
      if (code) perAtvk.set(code, [...(perAtvk.get(code) ?? []), r[0]!]);
    }
    const byCount = [...perAtvk].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
    const byCode = [...perAtvk].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const vidCodes = fs
      .readFileSync(path.join(tmp, 'pdb_nm_komersantu_samaksato_nodoklu_kopsumas_odata.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[0]!.replaceAll('"', ''));
    const orphanRows = vidCodes.filter((c) => !registerCodes().includes(c)).length;

    expect(ctx.report.rejects.map((r) => [r.file, r.reason, r.action, r.rows, r.example])).toEqual([
      ['register.csv', 'closed flag set', 'value nulled', closed.length, closed.sort()[0]],
      ...byCount.map(([code, holders]) => [
        'register.csv',
        `unmapped ATVK code ${code}`,
        'value nulled',
        holders.length,
        code,
      ]),
      ...byCode.map(([code, holders]) => [
        'register.csv',
        `unmapped ATVK (all) code ${code}`,
        'value nulled',
        holders.length,
        holders.sort()[0],
      ]),
      [
        'pdb_nm_komersantu_samaksato_nodoklu_kopsumas_odata.csv',
        'tax rows for a code not in the register file',
        'row dropped',
        orphanRows,
        null,
      ],
      ['family_*.jsonl', 'counted by the stage', 'row dropped', 2, 'x'],
    ]);
  });

  it('takes the candidate delimiter that splits the header, and names the file when none does', async () => {
    const ctx = await context();
    await readTaxes(ctx, [';', ',']);
    const lines = fs
      .readFileSync(path.join(tmp, 'pdb_nm_komersantu_samaksato_nodoklu_kopsumas_odata.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(await count('SELECT count(*) FROM raw_vid')).toBe(lines.length - 1);
    const refused = ctx.read('csv', {
      key: 'register',
      table: 'raw_register_2',
      delimiter: [',', '|'],
      header: REGISTER_HEADER,
      columns: varchars(REGISTER_HEADER),
    });
    await expect(refused).rejects.toThrow(SourceFileError);
    await expect(refused).rejects.toThrow(
      'register.csv line 1, column 1: neither "," nor "|" splits the header',
    );
  });

  it('makes the declared empty table for an absent optional file, with no stage and nothing counted', async () => {
    const ctx = await context();
    const officers = await ctx.read('csv', {
      key: 'officers',
      table: 'raw_officers',
      delimiter: ';',
      header: ['at_legal_entity_registration_number'],
      columns: varchars(['at_legal_entity_registration_number']),
      ifAbsent: 'at_legal_entity_registration_number VARCHAR, position VARCHAR',
    });
    expect(officers).toMatchObject({ present: false, table: 'raw_officers' });
    expect(await count('SELECT count(*) FROM raw_officers')).toBe(0);
    expect((await conn.runAndReadAll('DESCRIBE raw_officers')).getRows().map((r) => [r[0], r[1]])).toEqual([
      ['at_legal_entity_registration_number', 'VARCHAR'],
      ['position', 'VARCHAR'],
    ]);
    await officers.orphans('officer rows', { codeSql: 't.at_legal_entity_registration_number' });
    expect(ctx.report.stages).toEqual([]);
    expect(ctx.report.rejects).toEqual([]);
  });

  it('names a file read earlier by its key, and an absent one by the key, not present', async () => {
    const ctx = await context();
    expect(ctx.has('register')).toBe(true);
    expect(ctx.has('vat')).toBe(false);
    expect(ctx.source('register', 'raw_register')).toMatchObject({ name: 'register.csv', present: true });
    expect(ctx.source('vat')).toMatchObject({ name: 'vat', present: false, table: null });
  });
});

describe('a stage as named steps', () => {
  it('runs the steps in order after the reference leaves and merges what they return into the detail', async () => {
    const ctx = await context();
    const seen: string[] = [];
    const stage = stageSteps({ register: 'UR', reader: 'test' }, [
      async () => {
        seen.push(`leaves ${await count('SELECT count(*) FROM activity_leaves')}`);
        return { first: 1 };
      },
      async () => {
        seen.push(`locations ${await count('SELECT count(*) FROM location_leaves')}`);
      },
      async () => ({ last: true }),
    ]);
    expect(await stage(ctx)).toEqual({
      source: 'official-files',
      sourceDetail: { register: 'UR', reader: 'test', first: 1, last: true },
    });
    expect(seen).toEqual([
      `leaves ${ctx.reference.activityLeaves.length}`,
      `locations ${ctx.reference.locationLeaves.length}`,
    ]);
  });

  it('builds the companies from the declared columns; a column unknown without an absent file is NULL', async () => {
    const ctx = await context();
    await (await readRegister(ctx)).keyRows('ingest_register', 'regcode');
    await buildCompanies({
      values: {
        registrikood: 'r.code',
        arinimi: 'r.name',
        vat_active: 'true',
        is_sole_trader: "r.type = 'IK'",
      },
      from: 'ingest_register r',
      noHistory: true,
      unknownWithout: { vat: ['vat_active'], register: ['is_sole_trader'] },
    })(ctx);
    const rows = (
      await conn.runAndReadAll(
        'SELECT registrikood, search_name, vat_active, is_sole_trader FROM stage_companies ORDER BY 1',
      )
    ).getRowObjectsJson();
    const expected = registerLines()
      .map((l) => l.split(';'))
      .map((r) => ({
        registrikood: r[0]!,
        // The name field as the CSV quotes it: outer quotes off, doubled quotes single.
        search_name: r[2]!.replace(/^"|"$/g, '').replaceAll('""', '"').toLowerCase(),
        vat_active: null,
        is_sole_trader: r[9] === 'IK',
      }))
      .sort((a, b) => (a.registrikood < b.registrikood ? -1 : 1));
    expect(rows).toEqual(expected);
    expect(ctx.report.stages.map((s) => s.stage)).toContain('build companies');
    expect(await count('SELECT count(*) FROM stage_history')).toBe(0);
  });
});

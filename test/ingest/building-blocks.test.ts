import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceFileError } from '../../ingest/official/errors.ts';
import { scanJson } from '../../ingest/official/json-scan.ts';
import { loadCsv } from '../../ingest/official/read-csv.ts';
import { loadJson } from '../../ingest/official/read-json.ts';
import { IngestReport } from '../../ingest/official/report.ts';
import { extractZip, listZip, writeZip } from '../../ingest/official/zip.ts';

let dir: string;
let instance: DuckDBInstance;
let conn: DuckDBConnection;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-blocks-'));
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

const HEADER = ['kood', 'nimi', 'kpv'];
const COLUMNS = [
  ['kood', 'VARCHAR'],
  ['nimi', 'VARCHAR'],
  ['kpv', 'DATE'],
] as const;

describe('zip', () => {
  it('round-trips a member through writeZip and extractZip with its CRC checked', async () => {
    const body = 'x;y\n'.repeat(50_000) + 'õäöü\n';
    const src = write('member.csv', body);
    const zip = path.join(dir, 'member.csv.zip');
    await writeZip(zip, src, 'member.csv');
    expect((await listZip(zip)).map((e) => e.name)).toEqual(['member.csv']);
    const out = path.join(dir, 'out.csv');
    await extractZip(zip, out);
    expect(fs.readFileSync(out, 'utf8')).toBe(body);
  });

  it('refuses a truncated archive', async () => {
    const src = write('m2.csv', 'a;b\n'.repeat(10_000));
    const zip = path.join(dir, 'm2.csv.zip');
    await writeZip(zip, src, 'm2.csv');
    const bytes = fs.readFileSync(zip);
    const cut = write('cut.zip', bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(extractZip(cut, path.join(dir, 'cut.csv'))).rejects.toThrow(/not a readable zip/);
  });
});

describe('loadCsv', () => {
  it('reads BOM, quoted delimiters and embedded newlines', async () => {
    const file = write(
      'ok.csv',
      '\uFEFFkood;nimi;kpv\n1;"a;b";02.01.2024\n2;"multi\nline ""q""";03.01.2024\n',
    );
    const report = new IngestReport();
    const load = await loadCsv(
      conn,
      {
        country: 'EE',
        file,
        display: 'ok.csv',
        table: 't_ok',
        delimiter: ';',
        header: HEADER,
        columns: COLUMNS,
        dateFormat: '%d.%m.%Y',
      },
      report,
    );
    expect(load).toEqual({ rowsRead: 2, rowsLoaded: 2, rowsRejected: 0 });
    const rows = (await conn.runAndReadAll('SELECT * FROM t_ok ORDER BY kood')).getRowObjectsJson();
    expect(rows[1]).toEqual({ kood: '2', nimi: 'multi\nline "q"', kpv: '2024-01-03' });
  });

  it('names file, line and column of an unterminated quote (a truncated file)', async () => {
    const file = write('trunc.csv', 'kood;nimi;kpv\n1;"a";02.01.2024\n2;"multi\nline";03.01.2024\n3;"cut of');
    const err = await loadCsv(
      conn,
      {
        country: 'EE',
        file,
        display: 'trunc.csv',
        table: 't_tr',
        delimiter: ';',
        header: HEADER,
        columns: COLUMNS,
        dateFormat: '%d.%m.%Y',
      },
      new IngestReport(),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceFileError);
    expect((err as Error).message).toMatch(/^trunc\.csv line 5, column 2 \(nimi\): unquoted value/);
  });

  it('rejects rows with bad values by reason and keeps the rest', async () => {
    const lines = [
      'kood;nimi;kpv',
      ...Array.from({ length: 300 }, (_, i) => `${i};n;01.01.2024`),
      '999;x;31.02.2024',
    ];
    const file = write('bad.csv', lines.join('\n') + '\n');
    const report = new IngestReport();
    const load = await loadCsv(
      conn,
      {
        country: 'EE',
        file,
        display: 'bad.csv',
        table: 't_bad',
        delimiter: ';',
        header: HEADER,
        columns: COLUMNS,
        dateFormat: '%d.%m.%Y',
      },
      report,
    );
    expect(load.rowsRejected).toBe(1);
    expect(report.rejects[0]).toMatchObject({
      reason: 'not a valid DATE in kpv',
      rows: 1,
      action: 'row dropped',
    });
    expect(report.rejects[0]?.example).toMatch(/^bad\.csv line 302, column 3 \(kpv\)/);
  });

  it('names the header column that differs', async () => {
    const file = write('hdr.csv', 'kood;name;kpv\n1;a;01.01.2024\n');
    await expect(
      loadCsv(
        conn,
        {
          country: 'EE',
          file,
          display: 'hdr.csv',
          table: 't_h',
          delimiter: ';',
          header: HEADER,
          columns: COLUMNS,
        },
        new IngestReport(),
      ),
    ).rejects.toThrow('hdr.csv line 1, column 2: header column is "name", expected "nimi"');
  });

  it('refuses an empty file', async () => {
    const file = write('empty.csv', '');
    await expect(
      loadCsv(
        conn,
        {
          country: 'EE',
          file,
          display: 'empty.csv',
          table: 't_e',
          delimiter: ';',
          header: HEADER,
          columns: COLUMNS,
        },
        new IngestReport(),
      ),
    ).rejects.toThrow('empty.csv line 1, column 1: the file is empty');
  });
});

describe('JSON', () => {
  it('locates the end of a truncated array', async () => {
    const file = write('t.json', '[\n    {"a": 1},\n    {"a": "x\\"y"},\n    {"a": [1, 2');
    const scan = await scanJson(file);
    expect(scan.truncated).toEqual({ line: 4, column: 15 });
    await expect(
      loadJson(
        conn,
        { country: 'EE', file, display: 't.json', table: 'j', columns: [['a', 'VARCHAR']] },
        new IngestReport(),
      ),
    ).rejects.toThrow('t.json line 4, column 15: the JSON ends inside a value');
  });

  it('reads a well-formed array', async () => {
    const file = write('ok.json', '[\n    {"a": 1, "b": {"c": [1]}},\n    {"a": 2, "extra": true}\n]');
    const { rowsRead } = await loadJson(
      conn,
      {
        country: 'EE',
        file,
        display: 'ok.json',
        table: 'j2',
        columns: [
          ['a', 'INTEGER'],
          ['b', 'STRUCT(c INTEGER[])'],
        ],
      },
      new IngestReport(),
    );
    expect(rowsRead).toBe(2);
  });
});

describe('progress', () => {
  it('draws one bar per stage on a terminal, redrawn in place', async () => {
    const { terminalProgress } = await import('../../ingest/official/progress.ts');
    const lines: string[] = [];
    let t = 0;
    const p = terminalProgress(
      (l) => lines.push(l),
      () => (t += 1000),
    );
    p.stageStarted('LV', 'read register.csv');
    p.stageProgress('LV', 'read register.csv', 0.5);
    p.stageFinished({ country: 'LV', stage: 'read register.csv', rows: 485896, seconds: 1.25 });
    p.fileProgress('register.csv', 512, 1024);
    expect(lines[0]).toBe(`LV read register.csv [${'?'.repeat(24)}]`);
    expect(lines[1]).toBe(`\x1b[1A\x1b[2KLV read register.csv [${'#'.repeat(12)}${'.'.repeat(12)}]  50%`);
    expect(lines[2]).toBe(`\x1b[1A\x1b[2KLV read register.csv [${'#'.repeat(24)}] 100% 485,896 rows 1.3 s`);
    expect(lines[3]).toBe(`register.csv [${'#'.repeat(12)}${'.'.repeat(12)}]  50% 0.0 MiB of 0.0 MiB`);
  });

  it('writes one JSON line per finished stage for logs', async () => {
    const { structuredProgress } = await import('../../ingest/official/progress.ts');
    const lines: string[] = [];
    const p = structuredProgress(
      (l) => lines.push(l),
      () => new Date('2026-11-02T02:30:00Z'),
    );
    p.stageStarted('EE', 'read lihtandmed');
    p.stageProgress('EE', 'read lihtandmed', 0.3);
    p.stageFinished({ country: 'EE', stage: 'read lihtandmed', rows: 360000, seconds: 2.345 });
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      {
        ts: '2026-11-02T02:30:00.000Z',
        event: 'ingest',
        country: 'EE',
        stage: 'read lihtandmed',
        rows: 360000,
        seconds: 2.35,
      },
    ]);
  });
});

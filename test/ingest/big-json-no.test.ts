import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, expect, it } from 'vitest';
import { loadJson } from '../../ingest/official/read-json.ts';
import { IngestReport } from '../../ingest/official/report.ts';

/*
 * BRREG's enheter download is one gzipped JSON array of about 1.16 million units: the reader must stream
 * it. The array here is the real record of test/fixtures/real/NO (Registerenheten i Brønnøysund) repeated a
 * million times with the organisation number counted up, gzipped by DuckDB; it is read with the adapter's
 * reader and every element must arrive, without the process holding the array.
 */

const REAL = fileURLToPath(new URL('../fixtures/real/NO/enheter_alle.json.gz', import.meta.url));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-big-json-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it('reads a gzipped array of a million real records, streamed', async () => {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '1GB' });
  const conn = await instance.connect();
  try {
    const file = path.join(tmp, 'enheter_alle.json.gz');
    await conn.run(
      `COPY (SELECT * REPLACE ((800000000 + i)::VARCHAR AS organisasjonsnummer)
             FROM read_json('${REAL}', format = 'array'), range(1000000) t(i))
       TO '${file}' (FORMAT json, ARRAY true, COMPRESSION gzip)`,
    );
    const before = process.memoryUsage().rss;
    const report = new IngestReport();
    const { rowsRead } = await loadJson(
      conn,
      {
        country: 'NO',
        file,
        display: 'enheter_alle.json.gz',
        table: 'raw',
        columns: [
          ['organisasjonsnummer', 'VARCHAR'],
          ['navn', 'VARCHAR'],
          ['forretningsadresse', 'STRUCT(kommunenummer VARCHAR)'],
        ],
      },
      report,
    );
    expect(rowsRead).toBe(1_000_000);
    const [row] = (
      await conn.runAndReadAll(
        `SELECT count(DISTINCT organisasjonsnummer)::INTEGER AS codes, min(navn) AS navn,
           count(*) FILTER (WHERE forretningsadresse.kommunenummer = '1813')::INTEGER AS kommune FROM raw`,
      )
    ).getRowObjectsJson();
    expect(row).toEqual({ codes: 1_000_000, navn: 'REGISTERENHETEN I BRØNNØYSUND', kommune: 1_000_000 });
    // About 1.2 GB of JSON went through; the JS heap never held it (DuckDB's memory is capped at 1 GB).
    expect(process.memoryUsage().rss - before).toBeLessThan(1.5 * 1024 ** 3);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}, 300_000);

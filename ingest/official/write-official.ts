import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { CountryCode } from '../../src/contract/countries.ts';
import { SNAPSHOT_FILES } from '../../src/contract/data-contract.ts';
import { sqlPath } from '../pipeline/sql.ts';
import { loadReference } from '../reference/index.ts';
import { writeEeOfficial } from './ee/write.ts';
import { writeFiOfficial } from './fi/write.ts';
import { writeLtOfficial } from './lt/write.ts';
import { writeLvOfficial } from './lv/write.ts';
import { writeNoOfficial } from './no/write.ts';
import { writePlOfficial } from './pl/write.ts';
import { writeSeOfficial } from './se/write.ts';
import type { WriterContext } from './writer-context.ts';

export const OFFICIAL_WRITERS: Partial<Record<CountryCode, (ctx: WriterContext) => Promise<string[]>>> = {
  EE: writeEeOfficial,
  LV: writeLvOfficial,
  LT: writeLtOfficial,
  NO: writeNoOfficial,
  FI: writeFiOfficial,
  SE: writeSeOfficial,
  PL: writePlOfficial,
};

export interface WriteOfficialOptions {
  /** A snapshot folder (`data/snapshots/<id>`), holding `<CC>/companies.parquet` and `history.parquet`. */
  snapshotDir: string;
  countries: readonly CountryCode[];
  /** Files go to `<outDir>/<CC>/`, under the names the download saves, so `ingest --from outDir` reads them. */
  outDir: string;
  /** Publication date written into as-of columns and dated file names; the world date by default. */
  asOf?: Date;
  log?: (msg: string) => void;
}

/** The synthetic world's own date (its manifests record it), so file dates agree with the data. */
function worldDate(manifestFile: string): Date | null {
  try {
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as {
      source_detail?: { world_date?: unknown };
    };
    const date = manifest.source_detail?.world_date;
    return typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date)
      ? new Date(`${date}T00:00:00Z`)
      : null;
  } catch {
    return null;
  }
}

/**
 * Writes each country of a canonical snapshot as the register's official files (the synthetic world's
 * "national open data"). DuckDB streams the Parquet into the CSV/JSON writers; nothing is read into JS.
 */
export async function writeOfficialFiles(opts: WriteOfficialOptions): Promise<Record<string, string[]>> {
  // 6 GB: NO's JSON writers at scale 1 ran out of 2 GB. This writes test input (the synthetic registers'
  // files); the ingest that reads them has its own, lower limit.
  const instance = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '6GB' });
  const conn = await instance.connect();
  const written: Record<string, string[]> = {};
  try {
    for (const country of opts.countries) {
      const writer = OFFICIAL_WRITERS[country];
      if (!writer) throw new Error(`no official-format writer for ${country}`);
      const dir = path.join(opts.snapshotDir, country);
      const outDir = path.join(opts.outDir, country);
      fs.rmSync(outDir, { recursive: true, force: true });
      fs.mkdirSync(outDir, { recursive: true });
      await conn.run(
        `CREATE OR REPLACE TEMP VIEW w_companies AS SELECT * FROM read_parquet(${sqlPath(path.join(dir, SNAPSHOT_FILES.companies))})`,
      );
      await conn.run(
        `CREATE OR REPLACE TEMP VIEW w_history AS SELECT * FROM read_parquet(${sqlPath(path.join(dir, SNAPSHOT_FILES.history))})`,
      );
      // SE: the SCB workplaces, for the CFAR file.
      const workplaces = path.join(dir, SNAPSHOT_FILES.workplaces);
      if (fs.existsSync(workplaces)) {
        await conn.run(
          `CREATE OR REPLACE TEMP VIEW w_workplaces AS SELECT * FROM read_parquet(${sqlPath(workplaces)})`,
        );
      }
      const started = Date.now();
      written[country] = await writer({
        conn,
        reference: loadReference(country),
        outDir,
        asOf: opts.asOf ?? worldDate(path.join(dir, SNAPSHOT_FILES.manifest)) ?? new Date(),
      });
      opts.log?.(
        `${country}: ${written[country]?.length ?? 0} official files in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
  return written;
}

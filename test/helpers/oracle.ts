import fs from 'node:fs';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import type { CountryCode } from '../../src/contract/countries.ts';
import type { SNAPSHOT_FILES } from '../../src/contract/data-contract.ts';
import { eeCheckDigit } from '../../src/contract/registration-codes.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';

/**
 * The independent side of the filter tests: plain DuckDB queries over the snapshot's Parquet files, written
 * here without the engine's tables, derived columns, signatures or dictionaries.
 */
export class Oracle {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
    readonly store: SnapshotStore,
    readonly snapshotId: string,
  ) {}

  static async open(dataDir: string): Promise<Oracle> {
    const store = new SnapshotStore(dataDir);
    const id = store.currentId();
    if (!id) throw new Error(`no live snapshot in ${dataDir}`);
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    return new Oracle(instance, await instance.connect(), store, id);
  }

  /** A Parquet file as a SQL table expression (test-built path, quoted). */
  file(country: CountryCode, name: keyof typeof SNAPSHOT_FILES): string {
    return `read_parquet('${this.store.file(this.snapshotId, country, name).replaceAll("'", "''")}')`;
  }

  json<T>(country: CountryCode, name: keyof typeof SNAPSHOT_FILES): T {
    return JSON.parse(fs.readFileSync(this.store.file(this.snapshotId, country, name), 'utf8')) as T;
  }

  async rows(sql: string, params: DuckDBValue[] = []): Promise<Record<string, unknown>[]> {
    const reader = await this.conn.runAndReadAll(sql, params);
    return reader.getRowObjectsJson() as Record<string, unknown>[];
  }

  async scalar<T = unknown>(sql: string, params: DuckDBValue[] = []): Promise<T> {
    const rows = await this.rows(sql, params);
    return Object.values(rows[0] ?? {})[0] as T;
  }

  /** Registration codes of for-sale companies matching `where`, in registrikood order, and their count. */
  async matching(
    country: CountryCode,
    where: string,
    params: DuckDBValue[] = [],
    limit = 500,
  ): Promise<{ count: number; codes: string[] }> {
    const from = `FROM ${this.file(country, 'companies')} WHERE NOT not_for_sale AND (${where})`;
    const count = Number(await this.scalar(`SELECT count(*)::INTEGER ${from}`, params));
    const codes = (
      await this.rows(`SELECT registrikood ${from} ORDER BY registrikood LIMIT ${limit}`, params)
    ).map((r) => String(r['registrikood']));
    return { count, codes };
  }

  close(): void {
    this.conn.closeSync();
    this.instance.closeSync();
  }
}

/** A well-formed EE code (valid check digit) that no company in the snapshot has: for 404 tests. */
export async function absentEeCode(oracle: Oracle): Promise<string> {
  for (let body = 9_000_000; ; body++) {
    const code = `${body}${eeCheckDigit(String(body))}`;
    const n = await oracle.scalar<number>(
      `SELECT count(*)::INTEGER FROM ${oracle.file('EE', 'companies')} WHERE registrikood = ?`,
      [code],
    );
    if (n === 0) return code;
  }
}

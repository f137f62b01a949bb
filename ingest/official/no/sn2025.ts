import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlPath } from '../../pipeline/sql.ts';
import { CORRESPONDENCE_FILES } from '../activity-codes.ts';

/*
 * BRREG publishes SN2025 (NACE Rev. 2.1 plus a national fifth digit, `NN.NNN`); the API serves SN2007 (NACE
 * Rev. 2 plus the fifth digit). No SN2025 file or SN2025 -> SN2007 table was found, so a code is mapped by
 * its class through the real NACE Rev. 2 -> Rev. 2.1 correspondence, read backwards, and keeps its fifth
 * digit where SN2007 has that leaf.
 */

/**
 * Needs `activity_leaves` (the SN2007 leaves). Creates `nace_pairs(old, new, ord)`, the correspondence
 * rows, and `no_rev21(new, old)`: for each Rev. 2.1 class the Rev. 2 class an SN2025 code is read as,
 * among the predecessors that have SN2007 leaves: the one with the same code if there is one (the class
 * kept its main content), else the first in the table.
 */
export async function createSn2025Tables(conn: DuckDBConnection): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE nace_pairs AS
    SELECT rev2 AS old, rev21 AS new, row_number() OVER () AS ord
    FROM read_csv(${sqlPath(CORRESPONDENCE_FILES.naceRev2toRev21)}, header = true, auto_detect = false,
                  delim = ',', quote = '"', columns = {'rev2': 'VARCHAR', 'rev21': 'VARCHAR', 'partial': 'VARCHAR'})`);
  await conn.run(`CREATE OR REPLACE TEMP TABLE no_class_leaves AS
    SELECT replace(left(kood, 5), '.', '') AS class, kood, substr(kood, 6, 1) AS digit FROM activity_leaves`);
  await conn.run(`CREATE OR REPLACE TEMP TABLE no_rev21 AS
    SELECT new, arg_min(old, (CASE WHEN new = old THEN 0 ELSE 1 END, ord)) AS old
    FROM nace_pairs WHERE old IN (SELECT class FROM no_class_leaves) GROUP BY new`);
}

/** SQL joins (after FROM ... alias `src`) that resolve `code` (an SN2025 code) to `sn.kood` (SN2007 leaf). */
export function sn2025JoinSql(code: string): string {
  const digits = `regexp_replace(coalesce(${code}, ''), '[^0-9]', '', 'g')`;
  return `LEFT JOIN no_rev21 sn_r ON sn_r.new = left(${digits}, 4)
    LEFT JOIN no_class_leaves sn_exact ON sn_exact.class = sn_r.old AND sn_exact.digit = substr(${digits}, 5, 1)
    LEFT JOIN (SELECT class, min(kood) AS kood FROM no_class_leaves GROUP BY class) sn_first ON sn_first.class = sn_r.old`;
}
export const SN2025_LEAF_SQL = 'coalesce(sn_exact.kood, sn_first.kood)';

/**
 * For the writer: `w_sn2025(kood, code)`, the SN2025 code BRREG would publish for each SN2007 leaf: its
 * class's Rev. 2.1 successor that the reading above maps back to it where there is one (so the round trip
 * holds), else its first successor; the fifth digit kept.
 */
export async function createSn2025Codes(conn: DuckDBConnection): Promise<void> {
  await createSn2025Tables(conn);
  await conn.run(`CREATE OR REPLACE TEMP TABLE w_sn2025 AS
    SELECT l.kood,
      substr(c21, 1, 2) || '.' || substr(c21, 3, 2) || l.digit AS code
    FROM no_class_leaves l JOIN (
      SELECT p.old,
        coalesce(arg_min(p.new, (CASE WHEN p.new = p.old THEN 0 ELSE 1 END, p.ord)) FILTER (WHERE r.old = p.old),
                 arg_min(p.new, (CASE WHEN p.new = p.old THEN 0 ELSE 1 END, p.ord))) AS c21
      FROM nace_pairs p LEFT JOIN no_rev21 r ON r.new = p.new GROUP BY p.old
    ) s ON s.old = l.class`);
}

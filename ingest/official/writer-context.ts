import type { DuckDBConnection } from '@duckdb/node-api';
import type { CountryReference, TreeNode } from '../reference/types.ts';

/** What an official-format writer gets: views `w_companies` and `w_history` over one country's snapshot. */
export interface WriterContext {
  conn: DuckDBConnection;
  reference: CountryReference;
  /** The country's output folder. */
  outDir: string;
  /** The date the files are "published" (data-as-of columns, file-name dates). */
  asOf: Date;
}

/**
 * `w_sections(kood, section, section_label)`: the section (root) of every activity leaf, for the columns
 * that registers fill with a sector name (EMTA's `Activity`).
 */
export async function createSectionTable(conn: DuckDBConnection, reference: CountryReference): Promise<void> {
  await conn.run(
    'CREATE OR REPLACE TEMP TABLE w_sections (kood VARCHAR, section VARCHAR, section_label VARCHAR)',
  );
  const appender = await conn.createAppender('w_sections');
  const walk = (node: TreeNode, root: TreeNode) => {
    if (node.children.length === 0) {
      appender.appendVarchar(node.kood);
      appender.appendVarchar(root.kood);
      appender.appendVarchar(root.label);
      appender.endRow();
    }
    for (const child of node.children) walk(child, root);
  };
  for (const root of reference.activityTrees['en'] ?? []) walk(root, root);
  appender.closeSync();
}

/** dd.mm.yyyy of a Date (UTC), as Estonian files write dates. */
export function estonianDate(d: Date): string {
  const dd = String(d.getUTCDate()).padStart(2, '0');
  const mm = String(d.getUTCMonth() + 1).padStart(2, '0');
  return `${dd}.${mm}.${d.getUTCFullYear()}`;
}

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

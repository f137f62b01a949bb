import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DuckDBConnection } from '@duckdb/node-api';

/*
 * Kommunenummer across the reforms of 2020 and 2024. The served tree is the current structure (357
 * kommuner); a unit whose address still carries a code of an earlier structure (0101 Halden, 3001 Halden
 * in Viken, 5401 Tromsø in Troms og Finnmark) is mapped through SSB's own change table for classification
 * 131 (KLASS `classifications/131/changes.json?from=1971-01-01&to=2025-01-02`, copied unchanged; source in
 * ingest/official/data/SOURCES.md). A code whose chain splits (1850 Tysfjord, 1507 Ålesund 2020-2023)
 * has no single successor and stays unmapped.
 */

export const KOMMUNE_CHANGES_FILE = fileURLToPath(
  new URL('../data/ssb_klass_131_changes_1971_2025.json', import.meta.url),
);

interface CodeChange {
  oldCode: string;
  newCode: string;
  changeOccurred: string;
}

function readChanges(): CodeChange[] {
  const json = JSON.parse(fs.readFileSync(KOMMUNE_CHANGES_FILE, 'utf8')) as { codeChanges: CodeChange[] };
  return json.codeChanges;
}

/**
 * The current code for `code`, or null when the chain splits or ends outside `current`. The chain starts
 * when the code was last created (its latest appearance as a newCode), so a number SSB reused later is not
 * sent down an older municipality's path; each later change date then replaces the codes it changes.
 */
export function resolveKommune(
  code: string,
  current: ReadonlySet<string>,
  changes: readonly CodeChange[] = readChanges(),
): string | null {
  if (current.has(code)) return code;
  const dates = [...new Set(changes.map((c) => c.changeOccurred))].sort();
  const created = changes
    .filter((c) => c.newCode === code && c.oldCode !== code)
    .map((c) => c.changeOccurred)
    .sort()
    .pop();
  let codes = new Set([code]);
  for (const date of dates) {
    if (created !== undefined && date <= created) continue;
    const next = new Set<string>();
    for (const c of codes) {
      const successors = changes.filter((x) => x.changeOccurred === date && x.oldCode === c);
      if (successors.length === 0) next.add(c);
      else for (const s of successors) next.add(s.newCode);
    }
    codes = next;
  }
  if (codes.size !== 1) return null;
  const [only] = [...codes];
  return only !== undefined && current.has(only) ? only : null;
}

/**
 * Needs `location_leaves`. Creates `no_kommune(code, kood)`: every current kommunenummer onto itself and
 * every superseded one SSB's table maps to exactly one current kommune.
 */
export async function createKommuneTable(conn: DuckDBConnection): Promise<void> {
  const current = new Set(
    (await conn.runAndReadAll('SELECT kood FROM location_leaves')).getRows().map(([k]) => String(k)),
  );
  const changes = readChanges();
  await conn.run('CREATE OR REPLACE TEMP TABLE no_kommune (code VARCHAR PRIMARY KEY, kood VARCHAR)');
  const appender = await conn.createAppender('no_kommune');
  const codes = new Set([...current, ...changes.map((c) => c.oldCode), ...changes.map((c) => c.newCode)]);
  for (const code of codes) {
    const kood = resolveKommune(code, current, changes);
    if (kood === null) continue;
    appender.appendVarchar(code);
    appender.appendVarchar(kood);
    appender.endRow();
  }
  appender.closeSync();
}

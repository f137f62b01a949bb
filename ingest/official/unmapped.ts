import type { DuckDBConnection } from '@duckdb/node-api';
import type { CountryCode } from '../../src/contract/countries.ts';
import { queryRows } from '../pipeline/sql.ts';
import type { IngestReport } from './report.ts';

/**
 * Reports classifier codes that neither the served tree nor a correspondence table resolves, one summary
 * line per code (`unmapped <classifier> code <code>`), so an operator sees which codes of a superseded
 * edition still need a table. `sql` yields `code` and `n`. Capped so a wholly wrong column cannot flood
 * the summary; the remainder is one line. With `listAll`, every code has its line, in code order, and
 * `sql` also yields `example` (a company holding the code).
 */
export async function rejectPerCode(
  conn: DuckDBConnection,
  o: {
    country: CountryCode;
    file: string;
    report: IngestReport;
    classifier: string;
    sql: string;
    listAll?: boolean;
  },
): Promise<void> {
  if (o.listAll) {
    for (const r of await queryRows(conn, `SELECT * FROM (${o.sql}) ORDER BY code`)) {
      const reason = `unmapped ${o.classifier} code ${String(r['code'])}`;
      o.report.reject(o.country, o.file, reason, Number(r['n']), 'value nulled', String(r['example']));
    }
    return;
  }
  const MAX_LINES = 50;
  const rows = await queryRows(conn, `SELECT code, n::BIGINT AS n FROM (${o.sql}) ORDER BY n DESC, code`);
  let rest = 0;
  let restExample: string | null = null;
  for (const [i, r] of rows.entries()) {
    const code = String(r['code']);
    const n = Number(r['n']);
    if (i < MAX_LINES) {
      o.report.reject(o.country, o.file, `unmapped ${o.classifier} code ${code}`, n, 'value nulled', code);
    } else {
      rest += n;
      restExample ??= code;
    }
  }
  o.report.reject(
    o.country,
    o.file,
    `unmapped ${o.classifier} codes beyond the first ${MAX_LINES}`,
    rest,
    'value nulled',
    restExample,
  );
}

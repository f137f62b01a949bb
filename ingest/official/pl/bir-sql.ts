import type { DuckDBConnection } from '@duckdb/node-api';

/*
 * REGON BIR answers taken apart in SQL (DuckDB reads no XML). An answer is an MTOM part around a SOAP
 * envelope whose `<DanePobierzPelnyRaportResult>` holds the report as escaped XML:
 * `&lt;praw_nazwa&gt;…&lt;/praw_nazwa&gt;`, whose values are escaped once more (`&amp;amp;` is `&`). A
 * field is one regular-expression match on the answer as stored, its value unescaped twice only when it
 * holds an `&`: about five times faster than unescaping the whole report and splitting it into records
 * (measured on 23,040 legal-person answers), which matters at 12 million answers. An empty element
 * (`<x />`) does not match and reads as NULL. Element names are matched as written; the few the service
 * spells two ways are asked under each spelling (`birField`).
 */
export async function createBirMacros(conn: DuckDBConnection): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP MACRO bir_unescape(s) AS
    replace(replace(replace(replace(replace(replace(s, '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&apos;', ''''),
      '&#xD;', chr(13)), '&amp;', '&')`);
  await conn.run(`CREATE OR REPLACE TEMP MACRO bir_value(v) AS
    nullif(trim(CASE WHEN strpos(v, '&') > 0 THEN bir_unescape(bir_unescape(v)) ELSE v END), '')`);
}

const re = (name: string): string => `'&lt;${name}&gt;(.*?)&lt;/${name}&gt;'`;

/** SQL: the value of element `names[0]` (or one of its other spellings) in a stored BIR answer or record. */
export function birField(text: string, ...names: string[]): string {
  const one = (n: string) => `bir_value(regexp_extract(${text}, ${re(n)}, 1))`;
  return names.length === 1 ? one(names[0]!) : `coalesce(${names.map(one).join(', ')})`;
}

/** SQL: the `<dane>` records of a stored answer (a multi-record report such as the PKD rows), escaped. */
export function birRecords(text: string): string {
  return `regexp_extract_all(${text}, '(?s)&lt;dane&gt;(.*?)&lt;/dane&gt;', 1)`;
}

/** SQL: true when the answer is BIR's error record (ErrorCode 4 "not found", …) rather than a report. */
export function birIsError(text: string): string {
  return `strpos(${text}, '&lt;ErrorCode&gt;') > 0`;
}

import type { DuckDBConnection } from '@duckdb/node-api';

/*
 * REGON BIR answers taken apart in SQL (DuckDB reads no XML). An answer is an MTOM part around a SOAP
 * envelope whose `<DanePobierzPelnyRaportResult>` holds the report as escaped XML:
 * `&lt;praw_nazwa&gt;…&lt;/praw_nazwa&gt;`, whose values are escaped once more (`&amp;amp;` is `&`).
 *
 * An answer is scanned once, while the capture files are read: one regexp_extract_all gives its leaf
 * elements, and each field is a list lookup by element name. The earlier form, one regular-expression
 * match per field (about 25 scans of every 2-3 kB answer), read the answers from a table holding them all
 * (27 GB at scale 1). A value is unescaped twice only when it holds an `&`. An empty element (`<x />`) is not
 * matched and reads as NULL; an element holding other elements (`root`, `dane`) is not a leaf and not
 * matched either. Element names are matched as written; the few the service spells two ways are looked
 * up under each spelling.
 */
export async function createBirMacros(conn: DuckDBConnection): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP MACRO bir_unescape(s) AS
    replace(replace(replace(replace(replace(replace(s, '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&apos;', ''''),
      '&#xD;', chr(13)), '&amp;', '&')`);
  await conn.run(`CREATE OR REPLACE TEMP MACRO bir_value(v) AS
    nullif(trim(CASE WHEN strpos(v, '&') > 0 THEN bir_unescape(bir_unescape(v)) ELSE v END), '')`);
}

/**
 * A leaf element as stored, `&lt;name&gt;value&lt;/`: the value holds no `&lt;` (a `<` inside a value is
 * escaped twice, `&amp;lt;`), so a match cannot run into the next element. Only whole matches are asked
 * for: RE2 finds them with its DFA, several times faster than extracting groups.
 */
const LEAF = `'&lt;\\w+&gt;[^&]*(?:&(?:[^l]|l[^t]|lt[^;])[^&]*)*&lt;/'`;

/** SQL: the leaf elements of a stored BIR answer, in order, each `&lt;name&gt;value&lt;/` (escaped). */
export function birLeaves(text: string): string {
  return `regexp_extract_all(${text}, ${LEAF})`;
}

/** SQL: the `&lt;name` part of each leaf in a list made by `birLeaves` (the keys `birLookup` searches). */
export function birLeafNames(leaves: string): string {
  return `list_transform(${leaves}, x -> split_part(x, '&gt;', 1))`;
}

/** SQL: the escaped value of the first of the elements `names` present, from `birLeaves` / `birLeafNames` lists. */
export function birLookup(leaves: string, leafNames: string, ...names: string[]): string {
  // `&lt;` + name + `&gt;` before the value, `&lt;/` after it.
  const one = (n: string) => `${leaves}[list_position(${leafNames}, '&lt;${n}')][${n.length + 9}:-6]`;
  return names.length === 1 ? one(names[0]!) : `coalesce(${names.map(one).join(', ')})`;
}

/** SQL: the escaped value of element `name` in a short stored record (a `<dane>` of `birRecords`). */
export function birMatch(text: string, name: string): string {
  return `regexp_extract(${text}, '&lt;${name}&gt;(.*?)&lt;/${name}&gt;', 1)`;
}

/** SQL: the `<dane>` records of a stored answer (a multi-record report such as the PKD rows), escaped. */
export function birRecords(text: string): string {
  // The whole match, not a group: RE2 finds it with its DFA.
  return `regexp_extract_all(${text}, '&lt;dane&gt;(?s:.*?)&lt;/dane&gt;')`;
}

/** SQL: true when the answer is BIR's error record (ErrorCode 4 "not found", …) rather than a report. */
export function birIsError(text: string): string {
  return `strpos(${text}, '&lt;ErrorCode&gt;') > 0`;
}

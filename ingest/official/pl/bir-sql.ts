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
 *
 * The answers are taken apart as they stand in the capture line, still JSON-escaped (`captureLinesAsText`):
 * none of the markers matched here (`&lt;`, `&gt;`, element names) holds a character JSON escapes, so
 * only the few values taken are unescaped, JSON first (`\"`, `\\`, `\n`, `\uXXXX`, …: only when a value holds a
 * backslash), then XML twice.
 */
export async function createBirMacros(conn: DuckDBConnection): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP MACRO bir_unescape(s) AS
    replace(replace(replace(replace(replace(replace(s, '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&apos;', ''''),
      '&#xD;', chr(13)), '&amp;', '&')`);
  // A JSON string's content unescaped by DuckDB's own JSON reader; NULL for a broken escape.
  await conn.run(`CREATE OR REPLACE TEMP MACRO bir_json_unescape(v) AS
    CASE WHEN strpos(v, '\\') = 0 THEN v WHEN json_valid('"' || v || '"') THEN json_extract_string('"' || v || '"', '$') END`);
  await conn.run(`CREATE OR REPLACE TEMP MACRO bir_xml_value(v) AS
    nullif(trim(CASE WHEN strpos(v, '&') > 0 THEN bir_unescape(bir_unescape(v)) ELSE v END), '')`);
  await conn.run(`CREATE OR REPLACE TEMP MACRO bir_value(v) AS bir_xml_value(bir_json_unescape(v))`);
}

/**
 * SQL of a query over capture files (`files`, a SQL list) read as lines of text rather than parsed as JSON,
 * with the JSON reader's columns `key`, `kind`, `status`, `fetched_at`, `body_base64`, and `body`: the text
 * in which the body stands still JSON-escaped, for the BIR matching above, which finds `&lt;…` markers
 * only (none holds a character JSON escapes) and unescapes the values it takes (`bir_value`).
 *
 * Both writers of capture lines (the harvest's `JSON.stringify` of a CaptureRecord, and official-files'
 * COPY) put `body` last, so a line ending `"body":"…"}` is cut in two: the envelope before `,"body":"`
 * (a few hundred bytes, parsed as JSON) and the rest. `,"body":"` cannot occur inside an earlier string (a
 * quote in a JSON string is always escaped), and a line ending `"}` without a backslash before the quote
 * ends with the body's closing quote. A writer may also escape `/` (`\\/`, PHP) or ASCII characters
 * (`\\u0026` for `&`, Go), which would hide markers; a line holding `\\/` or `\\u00` is parsed whole (its
 * values are still exact, only slower). When the envelope holds no `&lt;`, every marker lies in the body, so
 * `body` is the whole line, never parsed nor copied: the JSON reader spent most of its time unescaping
 * 2-3 kB answers, and DuckDB's character-based substrings cost as much. Any other line (a base64 or null
 * body, another key order, a body ending in a backslash) is parsed whole and its body escaped again, so
 * it reads the same way; a line that is not JSON (the cut last line of a killed harvest) is left out, as
 * the JSON reader's ignore_errors did. Bytes 0x01 and 0x02 (the CSV delimiter and quote) never occur in a
 * JSON line (control characters are escaped), so the CSV reader sees one column per line. A line is at
 * most 16 MB (the reader's buffers grow with that limit; a BIR report of one unit is a few kB).
 */
export function captureLinesAsText(files: string): string {
  const fields = `['$.key', '$.kind', '$.status', '$.fetched_at', '$.body', '$.body_base64']`;
  return `(SELECT env[1] AS key, env[2] AS kind, TRY_CAST(env[3] AS INTEGER) AS status, env[4] AS fetched_at,
      CASE WHEN fast THEN line ELSE (to_json(env[5])::VARCHAR)[2:-2] END AS body,
      CASE WHEN NOT fast THEN env[6] END AS body_base64
    FROM (SELECT line, fast, json_extract_string(CASE WHEN fast THEN head ELSE line END, ${fields}) AS env
      FROM (SELECT line, head, head IS NOT NULL AND strpos(head, '&lt;') = 0 AND json_valid(head) AS fast
        FROM (SELECT line, CASE WHEN p > 0 AND ends_with(line, '"}') AND NOT ends_with(line, '\\"}')
            AND NOT contains(line, '\\/') AND NOT contains(line, '\\u00') THEN left(line, p - 1) || '}' END AS head
          FROM (SELECT line, strpos(line, ',"body":"') AS p
            FROM read_csv(${files}, columns = {line: 'VARCHAR'}, header = false, auto_detect = false,
              delim = '\x01', quote = '\x02', escape = '\x02', max_line_size = 16777216, buffer_size = 33554432,
              ignore_errors = true)
            WHERE line IS NOT NULL)))
      WHERE fast OR json_valid(line)))`;
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

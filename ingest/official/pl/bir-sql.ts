import type { DuckDBConnection } from '@duckdb/node-api';

/*
 * REGON BIR answers taken apart in SQL (DuckDB reads no XML). An answer is an MTOM part around a SOAP
 * envelope whose `<DanePobierzPelnyRaportResult>` holds the report as escaped XML: `&lt;root&gt;&#xD;\n
 * &lt;dane&gt;…`. Unescaping once gives the `<root><dane>…</dane></root>` document, whose values are
 * themselves escaped once more. Each `<dane>` becomes a MAP of lower-cased element name to trimmed value
 * (empty elements `<x />` are absent, so they read as NULL): one pass over the text per answer, instead of
 * one regular expression per field.
 */
export async function createBirMacros(conn: DuckDBConnection): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP MACRO bir_unescape(s) AS
    replace(replace(replace(replace(replace(replace(s, '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&apos;', ''''),
      '&#xD;', chr(13)), '&amp;', '&')`);
  await conn.run(`CREATE OR REPLACE TEMP MACRO bir_records(body) AS list_transform(
    regexp_extract_all(
      bir_unescape(regexp_extract(body, '(?s)<DanePobierzPelnyRaportResult>(.*)</DanePobierzPelnyRaportResult>', 1)),
      '(?s)<dane>(.*?)</dane>', 1),
    blk -> map_from_entries(list_transform(
      list_filter(string_split(blk, '<'),
        t -> strpos(t, '>') > 0 AND NOT starts_with(t, '/') AND strpos(split_part(t, '>', 1), '/') = 0),
      t -> {k: lower(trim(split_part(t, '>', 1))), v: nullif(trim(bir_unescape(substr(t, strpos(t, '>') + 1))), '')})))`);
}

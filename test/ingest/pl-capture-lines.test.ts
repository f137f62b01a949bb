import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birLeafNames, birLeaves, birLookup, createBirMacros } from '../../ingest/official/pl/bir-sql.ts';
import { captureLines } from '../../ingest/official/pl/captures.ts';

/*
 * REGON capture lines as the PL ingest reads them (stage.ts `captureLines`, the SQL of bir-sql.ts): every
 * JSON escape a writer may use (`\"`, `\\`, `\/`, `\n`, `\uXXXX`, surrogate pairs) and Polish letters,
 * raw or escaped, come out exactly. The oracle is JavaScript's own JSON.parse of each line and a plain XML
 * unescape of the element's text, never the SQL under test.
 */

let tmp = '';
let conn: DuckDBConnection;
let n = 0;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'regdata-pl-capture-'));
  conn = await (await DuckDBInstance.create(':memory:')).connect();
  await createBirMacros(conn);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The value as BIR stores it in a report: XML-escaped, and escaped once more inside the SOAP result. */
const birEscape = (v: string): string =>
  v.replaceAll('&', '&amp;amp;').replaceAll('<', '&amp;lt;').replaceAll('>', '&amp;gt;');
const body = (fields: Record<string, string>): string =>
  `\r\n--uuid:x+id=1\r\nContent-Type: application/xop+xml;charset=utf-8\r\n\r\n<s:Envelope><s:Body><DanePobierzPelnyRaportResult>&lt;root&gt;&#xD;\n  &lt;dane&gt;&#xD;\n${Object.entries(
    fields,
  )
    .map(([k, v]) => `    &lt;${k}&gt;${birEscape(v)}&lt;/${k}&gt;&#xD;\n`)
    .join(
      '',
    )}  &lt;/dane&gt;&#xD;\n&lt;/root&gt;</DanePobierzPelnyRaportResult></s:Body></s:Envelope>\r\n--uuid:x+id=1--\r\n`;
const line = (key: string, b: string | null, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    key,
    kind: 'BIR11OsPrawna',
    url: 'https://wyszukiwarkaregon.stat.gov.pl/wsBIR/UslugaBIRzewnPubl.svc',
    action: 'DanePobierzPelnyRaport',
    status: 200,
    content_type: 'multipart/related; type="application/xop+xml"',
    fetched_at: '2026-11-22T01:00:00.000Z',
    ...extra,
    ...(b === null ? {} : { body: b }),
  });
/** JSON with every character outside printable ASCII written as \uXXXX, and `/` as `\/` (both valid JSON). */
const asciiJson = (s: string): string =>
  s.replace(/[^\x20-\x7e]|\//g, (c) =>
    c === '/' ? '\\/' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** What the ingest reads from `lines`: the envelope and the values of `names`, in file order. */
async function read(lines: string[], names: string[]): Promise<Record<string, unknown>[]> {
  const file = path.join(tmp, `pl_regon_${n++}.jsonl`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const sql = `SELECT key, kind, status, fetched_at, body IS NULL AND body_base64 IS NOT NULL AS base64,
      ${names.map((f) => `bir_value(${birLookup('leaves', 'leaf_names', f)}) AS "${f}"`).join(', ')}
    FROM (SELECT *, ${birLeafNames('leaves')} AS leaf_names
      FROM (SELECT *, ${birLeaves('body')} AS leaves FROM ${captureLines(`['${file}']`)}))`;
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

/** The oracle: JSON.parse of the line, the element's text found in the body and unescaped twice. */
function oracle(l: string, names: string[]): Record<string, unknown> {
  const r = JSON.parse(l) as Record<string, unknown>;
  const b = typeof r['body'] === 'string' ? r['body'] : '';
  const xml = (s: string) =>
    s
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&quot;', '"')
      .replaceAll('&apos;', "'")
      .replaceAll('&amp;', '&');
  const out: Record<string, unknown> = {
    key: r['key'],
    kind: r['kind'],
    status: r['status'],
    fetched_at: r['fetched_at'],
    base64: r['body'] === undefined && r['body_base64'] !== undefined,
  };
  for (const f of names) {
    const m = new RegExp(`&lt;${f}&gt;([^]*?)&lt;/${f}&gt;`).exec(b);
    // The reader trims space separators (Unicode Zs, as DuckDB's trim() does); an empty value is NULL.
    const v = m ? xml(xml(m[1]!)).replace(/^\p{Zs}+|\p{Zs}+$/gu, '') : '';
    out[f] = v === '' ? null : v;
  }
  return out;
}

describe('REGON capture lines', () => {
  const names = ['praw_nazwa', 'praw_adSiedzUlica_Nazwa', 'praw_adresEmail'];
  const values = {
    praw_nazwa: 'Zakład "Łódź" \\ Spółka & Syn <S.A.> / ąćęłńóśźż ĄĆĘŁŃÓŚŹŻ 😀',
    praw_adSiedzUlica_Nazwa: 'ul.\tKrótka\nII\r',
    praw_adresEmail: ' biuro@łódź.pl ',
  };

  it('unescapes every JSON escape exactly, Polish letters raw and as \\u escapes alike', async () => {
    const raw = line('000000001', body(values));
    const escaped = asciiJson(line('000000002', body(values)));
    expect(escaped).toContain('\\u0142'); // ł
    expect(escaped).toContain('\\ud83d\\ude00'); // a surrogate pair
    expect(escaped).toContain('\\/');
    const rows = await read([raw, escaped], names);
    expect(rows).toEqual([oracle(raw, names), oracle(escaped, names)]);
    expect(rows[0]!['praw_nazwa']).toBe(values.praw_nazwa);
    expect(rows[1]!['praw_nazwa']).toBe(values.praw_nazwa);
    expect(rows[1]!['praw_adSiedzUlica_Nazwa']).toBe('ul.\tKrótka\nII\r');
    expect(rows[1]!['praw_adresEmail']).toBe('biuro@łódź.pl');
  });

  it('reads any key order, marker-like envelopes, base64 and empty bodies, and leaves out a cut line', async () => {
    const lines = [
      // body first
      JSON.stringify({
        body: body(values),
        key: '000000003',
        kind: 'BIR11OsPrawna',
        status: 200,
        fetched_at: 't',
      }),
      // the envelope holds a marker the matching looks for
      line('000000004', body(values), { url: 'https://x/&lt;praw_nazwa&gt;no&lt;/praw_nazwa&gt;' }),
      // a body ending in a backslash, and one ending in `"}`
      line('000000005', `${body(values)}\\`),
      line('000000006', `${body(values)}"}`),
      // not UTF-8, kept as base64; an answer without a body
      line('000000007', null, { body_base64: 'AAEC' }),
      line('000000008', null, { status: 204 }),
    ];
    const cut = line('000000009', body(values)).slice(0, -40);
    const rows = await read([...lines, cut], names);
    // The reader keeps a cut line as a row of NULLs (ignore_errors): no kind and no status, so nothing of it
    // is used (stage.ts reads only status-200 answers of a known report).
    const nothing = Object.fromEntries(
      ['key', 'kind', 'status', 'fetched_at', ...names].map((k) => [k, null]),
    );
    expect(rows).toEqual([...lines.map((l) => oracle(l, names)), { ...nothing, base64: false }]);
    expect(rows[1]!['praw_nazwa']).toBe(values.praw_nazwa);
  });

  it('matches JSON.parse for any values, written raw or \\u-escaped', async () => {
    const value = fc.string({ unit: 'grapheme', maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(value, value, fc.boolean()), { minLength: 1, maxLength: 8 }),
        async (cases) => {
          const lines = cases.map(([a, b, ascii], i) => {
            const l = line(String(i), body({ praw_nazwa: a, praw_adSiedzUlica_Nazwa: b }));
            return ascii ? asciiJson(l) : l;
          });
          const got = await read(lines, names);
          expect(got).toEqual(lines.map((l) => oracle(l, names)));
        },
      ),
      { numRuns: 40 },
    );
  });
});

import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldByTable, readTable, TABLE_RANGES, TermFolder } from '../../src/engine/term-folder.ts';

/**
 * The folder against DuckDB folding whole strings (`lower(strip_accents(s))`, the folding of the
 * indexed texts): folding code point by code point from the table must give the same bytes for any
 * string of the table's code points, and terms with others must still fold as DuckDB folds them whole.
 */

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

/** DuckDB's folding of each whole string, in one query. */
async function duckFold(strings: readonly string[]): Promise<string[]> {
  const reader = await connection.runAndReadAll(
    `SELECT lower(strip_accents(s)) AS f FROM (SELECT unnest(from_json(?::VARCHAR, '["VARCHAR"]')) AS s, generate_subscripts(from_json(?::VARCHAR, '["VARCHAR"]'), 1) AS i) ORDER BY i`,
    [JSON.stringify(strings), JSON.stringify(strings)],
  );
  return reader.getRowObjectsJson().map((r) => String(r['f']));
}

const tableCodePoint = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }),
  // Latin-1 to Latin Extended-B, and the combining marks, where European names live.
  fc.integer({ min: 0x80, max: 0x36f }),
  ...TABLE_RANGES.map(([lo, hi]) => fc.integer({ min: lo, max: hi - 1 })),
);
const tableString = fc
  .array(tableCodePoint, { minLength: 1, maxLength: 12 })
  .map((cps) => String.fromCodePoint(...cps));

describe('TermFolder', () => {
  it('folds any string of the table code points as DuckDB folds it whole', async () => {
    const table = await readTable(connection);
    await fc.assert(
      fc.asyncProperty(fc.array(tableString, { minLength: 1, maxLength: 200 }), async (strings) => {
        const expected = await duckFold(strings);
        expect(strings.map((s) => foldByTable(s, table))).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });

  it('leaves a term with a code point outside the table to DuckDB, which composes Hangul jamo', async () => {
    const table = await readTable(connection);
    const jamo = '\u1100\u1161';
    expect(foldByTable(jamo, table)).toBeNull();
    const folder = new TermFolder(connection);
    const terms = [
      jamo,
      'Ozoliņš',
      'GÓRSKA',
      'İstanbul',
      'Straße',
      'ΣΑΣ',
      'e\u0301',
      'Ålesund',
      '😀x',
      'kjell',
    ];
    expect(await folder.fold(terms)).toEqual(await duckFold(terms));
    // DuckDB composes the two jamo into one syllable: a code point by code point folding could not.
    expect(await folder.fold([jamo])).toEqual(['\uac00']);
  });

  it('answers repeated and concurrent folds the same', async () => {
    const folder = new TermFolder(connection);
    const terms = ['Pētersone', 'ĀBOLS', '\u1100\u1162', 'Taksi'];
    const answers = await Promise.all([
      folder.fold(terms),
      folder.fold([...terms].reverse()),
      folder.fold(terms),
    ]);
    const expected = await duckFold(terms);
    expect(answers[0]).toEqual(expected);
    expect(answers[1]).toEqual([...expected].reverse());
    expect(answers[2]).toEqual(expected);
  });
});

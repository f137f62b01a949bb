import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCounter, ndjsonCounter, parquetCounter } from '../../src/services/export.ts';

/*
 * What an export charges is what these counters say was sent (src/services/export.ts), so they must count
 * exactly the rows whose last byte went out, however the bytes are cut into chunks. The oracle is the byte
 * length of each record, known from how the test wrote it, never the counter's scan.
 */

/** Texts with the characters that make CSV hard: quotes, commas, newlines, multi-byte letters. */
const cell = fc.option(fc.string({ unit: fc.constantFrom('a', 'Ž', '"', ',', '\n', '\r', ' ', '1') }), {
  nil: null,
});

/** RFC 4180 as DuckDB writes it: a value with a quote, comma or line break is quoted, quotes doubled. */
function csvValue(v: string | null): string {
  if (v === null) return '';
  return /[",\n\r]/.test(v) || v === '' ? `"${v.replaceAll('"', '""')}"` : v;
}

/** Cut points of a byte string into chunks. */
const cuts = (length: number) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: 20 })
    .map((c) => c.filter((x) => x < length).sort((a, b) => a - b));

/** After each chunk: the rows whose terminating byte is in what was sent so far. */
function check(bytes: Buffer, ends: number[], at: number[], counter: { sent(c: Buffer): number }) {
  let from = 0;
  for (const to of [...at, bytes.length]) {
    const got = counter.sent(bytes.subarray(from, to));
    expect(got).toBe(ends.filter((e) => e <= to).length);
    from = to;
  }
}

describe('export row counters', () => {
  it('CSV: counts a row once its closing newline is sent, quoted newlines and chunk cuts notwithstanding', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 2, maxLength: 2 }), { maxLength: 30 }).chain((rows) => {
          const header = 'a,b\n';
          const lines = rows.map((r) => `${r.map(csvValue).join(',')}\n`);
          const bytes = Buffer.from(header + lines.join(''), 'utf8');
          // Byte offset just after each record's newline (the header is not a row).
          const ends: number[] = [];
          let offset = Buffer.byteLength(header);
          for (const l of lines) ends.push((offset += Buffer.byteLength(l)));
          return fc.tuple(fc.constant(bytes), fc.constant(ends), cuts(bytes.length));
        }),
        ([bytes, ends, at]) => check(bytes, ends, at, csvCounter()),
      ),
    );
  });

  it('NDJSON: counts a row once its newline is sent', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.string(), cell), { maxLength: 30 }).chain((rows) => {
          const lines = rows.map((r) => `${JSON.stringify(r)}\n`);
          const bytes = Buffer.from(lines.join(''), 'utf8');
          const ends: number[] = [];
          let offset = 0;
          for (const l of lines) ends.push((offset += Buffer.byteLength(l)));
          return fc.tuple(fc.constant(bytes), fc.constant(ends), cuts(bytes.length));
        }),
        ([bytes, ends, at]) => check(bytes, ends, at, ndjsonCounter()),
      ),
    );
  });

  it('Parquet: counts a row group once its last byte is sent', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ rows: fc.integer({ min: 1, max: 5 }), size: fc.integer({ min: 1, max: 50 }) }), {
          maxLength: 8,
        }),
        fc.integer({ min: 0, max: 30 }),
        (sizes, footer) => {
          const groups: { rows: number; end: number }[] = [];
          let end = 4; // the magic bytes
          for (const g of sizes) groups.push({ rows: g.rows, end: (end += g.size) });
          const bytes = Buffer.alloc(end + footer);
          const counter = parquetCounter(groups);
          let sent = 0;
          for (let i = 0; i < bytes.length; i += 7) {
            const chunk = bytes.subarray(i, i + 7);
            sent += chunk.length;
            expect(counter.sent(chunk)).toBe(
              groups.filter((g) => g.end <= sent).reduce((a, g) => a + g.rows, 0),
            );
          }
        },
      ),
    );
  });
});

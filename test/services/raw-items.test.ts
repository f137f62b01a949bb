import { describe, expect, it } from 'vitest';
import { itemCount, stringifyEnvelope, withRawItems } from '../../src/services/raw-items.ts';

interface Page {
  items: { registrikood: string; arinimi: string | null }[];
  page: number;
  total: number;
}

const rows = [
  { registrikood: '10000018', arinimi: 'Ääre "Kala" OÜ' },
  { registrikood: '10000024', arinimi: null },
];
const page = () => withRawItems<Page>(JSON.stringify(rows), rows.length, { page: 1, total: 2 });

describe('a search page with raw items', () => {
  it('writes the same bytes as JSON.stringify of the parsed page, without reading the items', () => {
    const p = page();
    const envelope = { data: p, meta: { rows_returned: 2 } };
    const spliced = stringifyEnvelope(envelope);
    expect(itemCount(p)).toBe(2);
    // Independent: the same envelope built from plain objects.
    expect(spliced).toBe(
      JSON.stringify({ data: { items: rows, page: 1, total: 2 }, meta: { rows_returned: 2 } }),
    );
  });

  it('reads as an ordinary object: items parsed once, in order, and spread copies are plain', () => {
    const p = page();
    expect(Object.keys(p)).toEqual(['items', 'page', 'total']);
    expect(p.items).toEqual(rows);
    expect(p.items).toBe(p.items);
    const copy = { ...p };
    expect(Object.getOwnPropertySymbols(copy)).toEqual([]);
    expect(copy).toEqual({ items: rows, page: 1, total: 2 });
  });

  it('writes a changed array once its items were read or replaced, never the stale text', () => {
    const read = page();
    read.items.pop();
    expect(itemCount(read)).toBe(1);
    expect(stringifyEnvelope({ data: read })).toBe(
      JSON.stringify({ data: { items: rows.slice(0, 1), page: 1, total: 2 } }),
    );
    const replaced = page();
    replaced.items = [];
    expect(stringifyEnvelope({ data: replaced })).toBe(
      JSON.stringify({ data: { items: [], page: 1, total: 2 } }),
    );
  });

  it('splices text holding "$" patterns as it is', () => {
    const tricky = [{ registrikood: '1', arinimi: "$& $' $` $$" }];
    const p = withRawItems<Page>(JSON.stringify(tricky), 1, { page: 1, total: 1 });
    expect(JSON.parse(stringifyEnvelope({ data: p }) as string)).toEqual({
      data: { items: tricky, page: 1, total: 1 },
    });
  });
});

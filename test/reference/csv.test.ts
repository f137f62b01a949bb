import { describe, expect, it } from 'vitest';
import { parseCsv, parseCsvRecords } from '../../ingest/reference/csv.ts';

describe('parseCsv', () => {
  it('reads quoted fields with delimiters, doubled quotes and line breaks inside', () => {
    const text = 'a;b;c\r\n1;"x; y";"say ""hi""\r\nnext line"\r\n';
    expect(parseCsv(text, ';')).toEqual([
      ['a', 'b', 'c'],
      ['1', 'x; y', 'say "hi"\r\nnext line'],
    ]);
  });

  it('drops a UTF-8 BOM and reads LF files and a last line without a newline', () => {
    expect(parseCsv('\uFEFFWOJ,POW\n02,\n04,01', ',')).toEqual([
      ['WOJ', 'POW'],
      ['02', ''],
      ['04', '01'],
    ]);
  });

  it('keeps a quote that does not open a field as text', () => {
    expect(parseCsv('a,b"c,d\n', ',')).toEqual([['a', 'b"c', 'd']]);
  });

  it('rejects a file that ends inside a quoted field', () => {
    expect(() => parseCsv('a,"b\n', ',')).toThrow(/inside a quoted field/);
  });
});

describe('parseCsvRecords', () => {
  it('keys rows by the header and skips blank lines', () => {
    expect(parseCsvRecords('code,label\n01,"Crop, animal"\n\n02,Forestry\n', ',', 't.csv')).toEqual([
      { code: '01', label: 'Crop, animal' },
      { code: '02', label: 'Forestry' },
    ]);
  });

  it('refuses a row whose field count differs from the header', () => {
    expect(() => parseCsvRecords('code,label\n01,a,b\n', ',', 't.csv')).toThrow(/t\.csv: row 2 has 3 fields/);
  });
});

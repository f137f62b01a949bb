import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { COUNTRY_CODES } from '../../src/contract/countries.ts';
import { openDuckDb, stageFingerprint } from './world-fixture.ts';

/**
 * The generator draws every value from hash(seed, country, row, field), so the same seed must give the
 * same rows whatever the thread count and whatever ran in the connection before, and another seed must
 * give another world. Compared by an order-independent fingerprint of each table's contract columns.
 */
describe('world determinism', () => {
  let one: { conn: DuckDBConnection; close: () => void };
  let two: { conn: DuckDBConnection; close: () => void };
  beforeAll(async () => {
    one = await openDuckDb(1);
    two = await openDuckDb(2);
  });
  afterAll(() => {
    one.close();
    two.close();
  });

  it.each(COUNTRY_CODES)(
    '%s: same seed on 1 and 2 threads gives identical tables, another seed different ones',
    async (country) => {
      const a = await stageFingerprint(one.conn, country, 0.001, 42);
      const b = await stageFingerprint(two.conn, country, 0.001, 42);
      const c = await stageFingerprint(two.conn, country, 0.001, 43);
      expect(b).toEqual(a);
      expect(c.companies).not.toEqual(a.companies);
      if (a.history !== '') expect(c.history).not.toEqual(a.history);
      if (a.workplaces !== '') expect(c.workplaces).not.toEqual(a.workplaces);
    },
  );
});

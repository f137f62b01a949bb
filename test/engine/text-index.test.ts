import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CountQuerySchema, SearchQuerySchema } from '../../src/contract/api-schemas.ts';
import { COUNTRY_CODES, type CountryCode } from '../../src/contract/countries.ts';
import { SnapshotStore } from '../../src/contract/snapshot-store.ts';
import { Engine } from '../../src/engine/engine.ts';
import { filtersFor } from '../../src/contract/filters.ts';
import { MAX_GRAM } from '../../src/engine/postings.ts';
import { countCompanies, searchCompanies } from '../../src/services/companies.ts';
import { Oracle } from '../helpers/oracle.ts';

/**
 * The trigram posting lists (postings.ts) must not change a single answer: every term, answered by its
 * trigrams or checked text by text, counts and lists exactly the companies whose text contains it,
 * computed here straight from the Parquet files with the contract's definitions of the folded texts.
 */

const COUNTRIES: readonly CountryCode[] = COUNTRY_CODES;

type TextFilter = 'company_name' | 'person_name' | 'location';
const textFilters = (country: CountryCode): TextFilter[] =>
  (['company_name', 'person_name', 'location'] as const).filter((id) =>
    filtersFor(country).some((f) => f.id === id),
  );

/** The folded text each filter matches, from the contract columns (docs/data-contract.md). */
const TEXT: Record<TextFilter, string> = {
  company_name: `lower(strip_accents(arinimi))`,
  person_name: `search_people`,
  location: `lower(strip_accents(concat_ws(' | ', ehak_nimetus, aadress_text)))`,
};

/** A small seeded generator, so a failure names a term that reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

let engine: Engine;
let oracle: Oracle;

beforeAll(async () => {
  const dataDir = inject('testDataDir');
  // Two planner threads: the test of kept terms counts on six requests meeting one thread three times.
  engine = await Engine.open(new SnapshotStore(dataDir), { connections: 2, plannerThreads: 2 });
  oracle = await Oracle.open(dataDir);
});
afterAll(() => {
  engine.close();
  oracle.close();
});

/** Terms drawn from the country's real texts: pieces of 1-8 characters, re-cased and re-accented. */
async function termsFor(country: CountryCode, filter: TextFilter, seed: number): Promise<string[]> {
  const texts = (
    await oracle.rows(
      `SELECT ${TEXT[filter]} AS t FROM ${oracle.file(country, 'companies')}
       WHERE NOT not_for_sale AND ${TEXT[filter]} <> '' ORDER BY hash(registrikood) LIMIT 40`,
    )
  ).map((r) => String(r['t']));
  const next = rng(seed);
  const terms: string[] = [];
  for (const text of texts) {
    const chars = [...text];
    const len = 1 + Math.floor(next() * 8);
    const start = Math.floor(next() * Math.max(1, chars.length - len));
    const piece = chars.slice(start, start + len).join('');
    terms.push(next() < 0.5 ? piece.toUpperCase() : piece);
  }
  // Accented and special forms: folded like the texts, quotes are not FTS5 syntax, and a term that no
  // text holds.
  terms.push('ÕÜÄ', 'Ščė', 'Ø', 'Straße', '"', 'a"b', 'oü"', 'zzqxzzqx', ' | ');
  return terms;
}

describe('substring posting lists', () => {
  for (const country of COUNTRIES) {
    for (const filter of textFilters(country)) {
      it(`${country} ${filter}: every term counts and lists exactly what contains finds`, async () => {
        const terms = await termsFor(country, filter, COUNTRIES.indexOf(country) * 7 + filter.length);
        let verified = 0;
        for (const term of terms) {
          const where = `staatus = 'R' AND contains(${TEXT[filter]}, lower(strip_accents(?)))`;
          const expected = await oracle.matching(country, where, [term], 20);
          const query = { country, [filter]: filter === 'company_name' ? [term] : term };
          const count = await countCompanies(engine, CountQuerySchema.parse(query));
          expect({ term, count: count.count }).toEqual({ term, count: expected.count });
          const page = await searchCompanies(
            engine,
            SearchQuerySchema.parse({ ...query, page_size: 20, sort_by: 'registrikood' }),
          );
          expect({ term, codes: page.items.map((i) => i.registrikood) }).toEqual({
            term,
            codes: expected.codes,
          });
          // Terms longer than the pieces with lists of their own are checked against the texts.
          if ([...term].length > MAX_GRAM) verified++;
        }
        expect(verified).toBeGreaterThan(terms.length / 4);
      });
    }
  }

  it('orders and filters a planned text search like the Parquet files: sort keys, directions, statuses, legal forms', async () => {
    const forms = await oracle.rows(
      `SELECT oiguslik_vorm AS f FROM ${oracle.file('EE', 'companies')} WHERE NOT not_for_sale
       GROUP BY 1 ORDER BY count(*) DESC LIMIT 2`,
    );
    const form = String(forms[0]!['f']);
    const terms = (await termsFor('EE', 'company_name', 3)).filter((t) => [...t].length >= 3).slice(0, 8);
    const cases = [
      { sort_by: 'company_name', sort_dir: 'desc', order: 'arinimi DESC NULLS LAST, registrikood DESC' },
      {
        sort_by: 'annual_revenue',
        sort_dir: 'asc',
        order: 'annual_revenue ASC NULLS LAST, registrikood ASC',
      },
      { sort_by: 'registration_code', sort_dir: 'desc', order: 'registrikood DESC' },
    ];
    for (const term of terms) {
      for (const [i, c] of cases.entries()) {
        const statusSql = i === 0 ? 'true' : i === 1 ? `staatus IN ('R', 'L')` : `staatus = 'R'`;
        const query = {
          country: 'EE',
          company_name: [term],
          ...(i === 0 ? { status: ['__all__'] } : i === 1 ? { status: ['R', 'L'] } : {}),
          ...(i === 2 ? { legal_form: [form] } : {}),
          sort_by: c.sort_by,
          sort_dir: c.sort_dir,
          page_size: 5,
          page: 2,
        };
        const where = `NOT not_for_sale AND ${statusSql} AND ${i === 2 ? 'oiguslik_vorm = ? AND ' : ''}
          contains(lower(strip_accents(arinimi)), lower(strip_accents(?)))`;
        const params = i === 2 ? [form, term] : [term];
        const from = `FROM ${oracle.file('EE', 'companies')} WHERE ${where}`;
        const expected = {
          total: await oracle.scalar<number>(`SELECT count(*)::INTEGER ${from}`, params),
          codes: (
            await oracle.rows(`SELECT registrikood ${from} ORDER BY ${c.order} LIMIT 5 OFFSET 5`, params)
          ).map((r) => String(r['registrikood'])),
        };
        const parsed = SearchQuerySchema.parse(query);
        const page = await searchCompanies(engine, parsed);
        expect({ term, i, total: page.total, codes: page.items.map((r) => r.registrikood) }).toEqual({
          term,
          i,
          ...expected,
        });
      }
    }
  });

  it('keeps a term checked against its texts, and answers later requests from the kept rows exactly', async () => {
    // termRows (postings.ts) keeps a long term's exact rows in a planner thread when a request there checks
    // half its candidates or more. Each term is sent with every status (twice: `__all__`, then each status
    // named), which checks all its candidates, and then with narrower filters: among this engine's two
    // threads, a later request meets a thread that kept it and plans the term as an exact set (no `~`).
    // Every answer must still be the Parquet files' own.
    const forms = (
      await oracle.rows(
        `SELECT oiguslik_vorm AS f FROM ${oracle.file('EE', 'companies')} WHERE NOT not_for_sale
         GROUP BY 1 ORDER BY count(*) DESC LIMIT 2`,
      )
    ).map((r) => String(r['f']));
    const terms = (await termsFor('EE', 'company_name', 11))
      .filter((t) => [...t].length > MAX_GRAM && !t.includes('"') && t.trim() !== '|')
      .slice(0, 6);
    expect(terms.length).toBeGreaterThan(3);
    const explains: string[] = [];
    engine.observePlans((_country, explain) => explains.push(explain));
    const statuses = (
      await oracle.rows(`SELECT DISTINCT staatus AS s FROM ${oracle.file('EE', 'companies')} ORDER BY 1`)
    ).map((r) => String(r['s']));
    const variants: { query: Record<string, unknown>; sql: string; params: string[] }[] = [
      { query: { status: ['__all__'] }, sql: 'true', params: [] },
      { query: { status: statuses }, sql: 'true', params: [] },
      { query: {}, sql: `staatus = 'R'`, params: [] },
      { query: { status: ['R', 'L'] }, sql: `staatus IN ('R', 'L')`, params: [] },
      { query: { legal_form: [forms[0]] }, sql: `staatus = 'R' AND oiguslik_vorm = ?`, params: [forms[0]!] },
      { query: { legal_form: [forms[1]] }, sql: `staatus = 'R' AND oiguslik_vorm = ?`, params: [forms[1]!] },
    ];
    for (const term of terms) {
      explains.length = 0;
      for (const [i, v] of variants.entries()) {
        const expected = await oracle.scalar<number>(
          `SELECT count(*)::INTEGER FROM ${oracle.file('EE', 'companies')} WHERE NOT not_for_sale AND ${v.sql}
           AND contains(lower(strip_accents(arinimi)), lower(strip_accents(?)))`,
          [...v.params, term],
        );
        const count = await countCompanies(
          engine,
          CountQuerySchema.parse({ country: 'EE', company_name: [term], ...v.query }),
        );
        expect({ term, i, count: count.count }).toEqual({ term, i, count: expected });
      }
      // At least one of this term's plans read it as an exact set.
      expect({ term, explains }).toEqual({
        term,
        explains: expect.arrayContaining([expect.stringMatching(/(^| )company_name\(\d+\)/)]),
      });
    }
  });

  it('answers the most common fragment from its posting lists, not by a scan', async () => {
    const common = await oracle.scalar<string>(
      `SELECT mode(substr(lower(strip_accents(arinimi)), 1, 3)) FROM ${oracle.file('PL', 'companies')}
       WHERE NOT not_for_sale`,
    );
    const expected = await oracle.matching(
      'PL',
      `staatus = 'R' AND contains(lower(strip_accents(arinimi)), ?)`,
      [common],
      20,
    );
    const params = CountQuerySchema.parse({ country: 'PL', company_name: [common] });
    expect(await engine.use((s) => s.planCount(params))).toBe(expected.count);
    expect(expected.count).toBeGreaterThan(2);
  });

  it('folds terms exactly as DuckDB folds the indexed texts', async () => {
    const terms = ['ÕUN', 'Straße', 'ŁÓDŹ', 'İstanbul', 'ΣΟΦΙΑ', 'Ǆ', 'Tallinn AS', 'ABC "x" | 12'];
    const expected = await Promise.all(
      terms.map((t) => oracle.scalar<string>('SELECT lower(strip_accents(?))', [t])),
    );
    expect(await engine.snapshot!.fold(terms)).toEqual(expected);
  });
});

import type { CountryManifest } from '../../src/contract/data-contract.ts';
import { listValue } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { COUNTRIES, COUNTRY_CODES } from '../../src/contract/countries.ts';
import type { TreeNode } from '../../src/contract/api-schemas.ts';
import { buildTestApp, qs, type TestApp } from '../helpers/app.ts';
import { Oracle } from '../helpers/oracle.ts';

/** Spec 4.2: countries, filters, activities and the location tree rules. */

let t: TestApp;
let oracle: Oracle;
beforeAll(async () => {
  t = await buildTestApp(inject('testDataDir'));
  oracle = await Oracle.open(inject('testDataDir'));
});
afterAll(async () => {
  await t?.close();
  oracle?.close();
});

function depth(nodes: TreeNode[]): number {
  return nodes.length === 0 ? 0 : 1 + Math.max(...nodes.map((n) => depth(n.children)));
}

describe('discovery endpoints', () => {
  it('lists the seven countries', async () => {
    const res = await t.get('/api/v1/data/countries');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      countries: COUNTRY_CODES.map((code) => {
        const manifest = oracle.json<CountryManifest>(code, 'manifest');
        return {
          code,
          name: COUNTRIES[code].name,
          as_of: manifest.generated_at.slice(0, 10),
          companies: manifest.row_counts.companies_for_sale,
        };
      }),
    });
  });

  it("serves each country's filters.json as written into the snapshot, with options and options_url", async () => {
    for (const country of COUNTRY_CODES) {
      const res = await t.get(`/api/v1/data/filters?country=${country}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(oracle.json(country, 'filters'));
      const filters = res.json().filters as {
        param: string | null;
        options: unknown;
        options_url: string | null;
        note: string | null;
      }[];
      const industry = filters.find((f) => f.param === 'industry_codes');
      expect(industry?.options_url).toBe(`/api/v1/data/activities?country=${country}`);
      // The note names the edition the snapshot's tree is (activities.json `edition`).
      const edition = oracle.json<{ edition: string }>(country, 'activities').edition;
      expect(industry?.note).toContain(`Edition: ${edition}`);
      expect(Array.isArray(filters.find((f) => f.param === 'legal_form')?.options)).toBe(true);
    }
  });

  it('serves the activity tree in English by default and in the native language where labels exist', async () => {
    for (const country of COUNTRY_CODES) {
      const trees = oracle.json<{ trees: Record<string, TreeNode[]> }>(country, 'activities').trees;
      const en = await t.get(`/api/v1/data/activities?country=${country}`);
      expect(en.statusCode).toBe(200);
      expect(en.json()).toEqual(trees['en']);
      for (const lang of Object.keys(trees)) {
        const res = await t.get(`/api/v1/data/activities?country=${country}&lang=${lang}`);
        expect(res.json()).toEqual(trees[lang]);
      }
    }
    const et = await t.get('/api/v1/data/activities?country=EE&lang=et');
    expect(et.statusCode).toBe(200);
  });

  it('answers 422 for a language the classifier has no labels in', async () => {
    const res = await t.get('/api/v1/data/activities?country=EE&lang=sv');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ param: 'lang', loc: ['query', 'lang'] });
  });
});

describe('location tree rules', () => {
  it('answers 400 for NO and SE, which have no tree', async () => {
    for (const country of ['NO', 'SE']) {
      const res = await t.get(`/api/v1/data/locations?country=${country}`);
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json())).toEqual(['detail']);
    }
  });

  it('serves the full tree, with codes (EE/LV/FI/PL) or locations (LT) on every node', async () => {
    for (const country of ['EE', 'LV', 'LT', 'FI', 'PL'] as const) {
      const res = await t.get(`/api/v1/data/locations?country=${country}`);
      expect(res.statusCode).toBe(200);
      const tree = res.json() as TreeNode[];
      expect(tree).toEqual(oracle.json<{ tree: TreeNode[] }>(country, 'locations').tree);
      const walk = (nodes: TreeNode[]) => {
        for (const n of nodes) {
          if (country === 'LT') expect(Array.isArray(n.locations)).toBe(true);
          else expect(n.codes).toContain(n.kood);
          walk(n.children);
        }
      };
      walk(tree);
    }
  });

  it('prunes below max_depth (1 = top level only)', async () => {
    const full = (await t.get('/api/v1/data/locations?country=EE')).json() as TreeNode[];
    for (const d of [1, 2, 3, 4]) {
      const res = await t.get(`/api/v1/data/locations?country=EE&max_depth=${d}`);
      const pruned = res.json() as TreeNode[];
      expect(depth(pruned)).toBe(Math.min(d, depth(full)));
      expect(pruned.map((n) => n.kood)).toEqual(full.map((n) => n.kood));
    }
  });

  it('answers a name query with at most 100 matching nodes, flat, case-insensitively', async () => {
    const full = (await t.get('/api/v1/data/locations?country=PL')).json() as TreeNode[];
    const label = full[0]!.label;
    const res = await t.get(
      `/api/v1/data/locations?country=PL&query=${encodeURIComponent(label.toUpperCase())}`,
    );
    expect(res.statusCode).toBe(200);
    const nodes = res.json() as TreeNode[];
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.length).toBeLessThanOrEqual(100);
    expect(nodes[0]!.kood).toBe(full[0]!.kood);
    for (const n of nodes) {
      expect(n.children).toEqual([]);
      expect(n.label.toLowerCase()).toContain(label.toLowerCase());
    }
    // A very common fragment hits the 100 cap.
    const many = (await t.get('/api/v1/data/locations?country=PL&query=ow')).json() as TreeNode[];
    expect(many.length).toBeLessThanOrEqual(100);
  });

  it('a node sent as its codes array finds every company under it, the parent code alone only its own', async () => {
    const tree = (await t.get('/api/v1/data/locations?country=FI')).json() as TreeNode[];
    const node = tree[0]!;
    const params = qs({ country: 'FI', ehak_kood: node.codes! });
    const all = (await t.get(`/api/v1/data/count?${params}`)).json().count as number;
    const parentOnly = (await t.get(`/api/v1/data/count?country=FI&ehak_kood=${node.kood}`)).json()
      .count as number;
    const expected = await oracle.scalar<number>(
      `SELECT count(*)::INTEGER FROM ${oracle.file('FI', 'companies')} WHERE NOT not_for_sale AND staatus = 'R'
       AND list_contains(?::VARCHAR[], ehak_kood)`,
      [listValue(node.codes!)],
    );
    expect(all).toBe(expected);
    expect(all).toBeGreaterThan(parentOnly);
  });
});

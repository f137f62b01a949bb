import { describe, expect, it } from 'vitest';
import { loadReference } from '../../ingest/reference/index.ts';
import type { CountryCode } from '../../src/contract/countries.ts';
import { countByDepth, find, leavesOf, subtreeKoods, walk } from './tree-helpers.ts';

const CODE_TREES = ['EE', 'LV', 'FI', 'PL'] as const satisfies readonly CountryCode[];

describe.each(CODE_TREES)('%s location tree (codes)', (country) => {
  const ref = loadReference(country);
  const tree = ref.locationTree ?? [];

  it('has a unique kood for every node', () => {
    const koods = [...walk(tree)].map((w) => w.node.kood);
    expect(koods.length).toBeGreaterThan(0);
    expect(new Set(koods).size).toBe(koods.length);
  });

  it("gives every node `codes` = its own kood plus all its descendants' koods", () => {
    for (const { node } of walk(tree)) {
      expect(node.codes?.slice().sort()).toEqual(subtreeKoods(node).sort());
      expect(node.codes?.[0]).toBe(node.kood);
      expect(node.locations).toBeUndefined();
    }
  });

  it('lists exactly the tree leaves as locationLeaves, with their path ending in the leaf', () => {
    expect(ref.locationLeaves.map((l) => l.kood)).toEqual(leavesOf(tree).map((n) => n.kood));
    for (const leaf of ref.locationLeaves) {
      expect(leaf.path.at(-1)).toBe(leaf.name);
      expect(leaf.population).toBeNull();
    }
  });
});

describe('location counts match the source files', () => {
  it('EE: 15 maakonda, 79 omavalitsust and every one of the 4,711 asustusüksused of the file', () => {
    const ref = loadReference('EE');
    const tree = ref.locationTree ?? [];
    // Eight towns are a municipality and its only settlement under one code: one node, a leaf at depth 2.
    expect(countByDepth(tree)).toEqual([15, 79, 4711 - 8]);
    expect(ref.locationLeaves).toHaveLength(4711);
    expect(ref.locationLeaves.every((l) => l.kood !== null && /^\d{4}$/.test(l.kood))).toBe(true);
    expect([...walk(tree)].filter((w) => w.depth === 2 && w.node.children.length === 0)).toHaveLength(8);
  });

  it('EE: the full tree serialises to well under a megabyte', () => {
    const bytes = Buffer.byteLength(JSON.stringify(loadReference('EE').locationTree));
    expect(bytes).toBeGreaterThan(300_000);
    expect(bytes).toBeLessThan(1_000_000);
  });

  it('LV: the 43 ATVK top-level units, one level', () => {
    const ref = loadReference('LV');
    expect(countByDepth(ref.locationTree ?? [])).toEqual([43]);
    expect(ref.locationLeaves).toHaveLength(43);
  });

  it('FI: 19 maakunta, 69 seutukunta, 309 kunta', () => {
    const ref = loadReference('FI');
    expect(countByDepth(ref.locationTree ?? [])).toEqual([19, 69, 309]);
    expect(ref.locationLeaves.every((l) => l.kood !== null && /^\d{3}$/.test(l.kood))).toBe(true);
  });

  it('PL: 16 województw, 380 powiatów, 2,477 gmin and their TERC parts', () => {
    const ref = loadReference('PL');
    // Depth 4: 662 × (miasto + obszar wiejski) of urban-rural gminy, 18 Warsaw dzielnice, 19 delegatury.
    expect(countByDepth(ref.locationTree ?? [])).toEqual([16, 380, 2477, 662 * 2 + 18 + 19]);
    // Leaves are the units of the address-level TERC: the 5 cities with districts and the 662
    // urban-rural gminy are represented by their parts.
    expect(ref.locationLeaves).toHaveLength(2477 - 5 - 662 + 662 * 2 + 37);
  });

  it('NO: 357 kommuner with real populations; no tree', () => {
    const ref = loadReference('NO');
    expect(ref.locationTree).toBeNull();
    expect(ref.locationLeaves).toHaveLength(357);
    expect(ref.locationLeaves.every((l) => typeof l.population === 'number' && l.population > 0)).toBe(true);
    expect(new Set(ref.locationLeaves.map((l) => l.kood)).size).toBe(357);
  });

  it('SE: 290 kommuner; no tree', () => {
    const ref = loadReference('SE');
    expect(ref.locationTree).toBeNull();
    expect(ref.locationLeaves).toHaveLength(290);
    expect(new Set(ref.locationLeaves.map((l) => l.kood)).size).toBe(290);
  });
});

describe('real location codes and names', () => {
  it('EE: 0784 is Tallinn, whose eight linnaosad are what company rows carry', () => {
    const tallinn = find(loadReference('EE').locationTree ?? [], '0784');
    expect(tallinn.label).toBe('Tallinn');
    expect(tallinn.children.map((c) => c.label)).toContain('Kesklinna linnaosa');
    expect(tallinn.codes).toHaveLength(9);
    expect(loadReference('EE').locationLeaves.find((l) => l.kood === '0298')).toEqual({
      kood: '0298',
      name: 'Kesklinna linnaosa',
      path: ['Harju maakond', 'Tallinn', 'Kesklinna linnaosa'],
      population: null,
    });
  });

  it('EE: Narva linn (0511) is one node, a municipality that is its own settlement', () => {
    const narva = find(loadReference('EE').locationTree ?? [], '0511');
    expect(narva).toMatchObject({ label: 'Narva linn', children: [], codes: ['0511'] });
  });

  it('LV: 0001000 is Rīga', () => {
    expect(find(loadReference('LV').locationTree ?? [], '0001000').label).toBe('Rīga');
  });

  it('FI: 091 is Helsinki, in seutukunta SK011 of maakunta MK01 Uusimaa', () => {
    const tree = loadReference('FI').locationTree ?? [];
    expect(find(tree, '091').label).toBe('Helsinki');
    expect(find(tree, 'SK011').codes).toContain('091');
    expect(find(tree, 'MK01').label).toBe('Uusimaa');
  });

  it('PL: 1465011 is Warszawa with its 18 dzielnice; TERC kinds tell same-named gminy apart', () => {
    const tree = loadReference('PL').locationTree ?? [];
    const warszawa = find(tree, '1465011');
    expect(warszawa.label).toBe('Warszawa (gmina miejska, miasto stołeczne)');
    expect(warszawa.children).toHaveLength(18);
    expect(find(tree, '1465058').label).toBe('Mokotów');
    expect(find(tree, '0201011').label).toBe('Bolesławiec (gmina miejska)');
    expect(find(tree, '0201022').label).toBe('Bolesławiec (gmina wiejska)');
    expect(find(tree, '0201032').label).toBe('Gromadka');
    expect(find(tree, '14').codes).toContain('1465058');
  });

  it('NO: 0301 is Oslo with its population; Sami-named kommuner use the Norwegian name', () => {
    const leaves = loadReference('NO').locationLeaves;
    expect(leaves.find((l) => l.kood === '0301')).toEqual({
      kood: '0301',
      name: 'Oslo',
      path: ['Oslo', 'Oslo'],
      population: 717710,
    });
    expect(leaves.find((l) => l.kood === '1826')?.name).toBe('Hattfjelldal');
  });

  it('SE: 0180 is Stockholm in Stockholms län', () => {
    expect(loadReference('SE').locationLeaves.find((l) => l.kood === '0180')).toEqual({
      kood: '0180',
      name: 'Stockholm',
      path: ['Stockholms län', 'Stockholm'],
      population: null,
    });
  });
});

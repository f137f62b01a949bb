import { describe, expect, it } from 'vitest';
import { parseCsvRecords } from '../../ingest/reference/csv.ts';
import { readDataFile } from '../../ingest/reference/data-files.ts';
import { loadReference } from '../../ingest/reference/index.ts';
import { fullMunicipalityName } from '../../ingest/reference/regions/lt-regions.ts';
import { countByDepth, find, leavesOf, walk } from './tree-helpers.ts';

describe('LT location tree (name variants)', () => {
  const ref = loadReference('LT');
  const tree = ref.locationTree ?? [];

  it('has 10 apskritys over 60 savivaldybės, keyed by unique ISO 3166-2:LT codes', () => {
    expect(countByDepth(tree)).toEqual([10, 60]);
    const koods = [...walk(tree)].map((w) => w.node.kood);
    expect(new Set(koods).size).toBe(70);
    for (const { node, depth } of walk(tree)) {
      expect(node.kood).toMatch(depth === 1 ? /^LT-[A-Z]{2}$/ : /^LT-\d\d$/);
      expect(node.codes).toBeUndefined();
    }
    expect(
      [...walk(tree)]
        .filter((w) => w.depth === 2)
        .map((w) => w.node.kood)
        .sort(),
    ).toEqual(Array.from({ length: 60 }, (_, i) => `LT-${String(i + 1).padStart(2, '0')}`));
  });

  it("gives every parent all of its children's name variants", () => {
    for (const { node } of walk(tree)) {
      for (const child of node.children) {
        for (const variant of child.locations ?? []) expect(node.locations).toContain(variant);
      }
      expect(new Set(node.locations).size).toBe(node.locations?.length);
    }
  });

  it('lists the 60 savivaldybės as leaves without a code, named as a register row names them', () => {
    expect(ref.locationLeaves).toHaveLength(60);
    expect(ref.locationLeaves.map((l) => l.name)).toEqual(leavesOf(tree).map((n) => n.locations?.[0]));
    for (const leaf of ref.locationLeaves) {
      expect(leaf.kood).toBeNull();
      expect(leaf.name).toMatch(/ sav\.$/);
      expect(leaf.path).toHaveLength(2);
      expect(leaf.path.at(-1)).toBe(leaf.name);
    }
  });

  it('matches Vilnius city by its short name, its full name and the city name', () => {
    const vilnius = find(tree, 'LT-57');
    expect(vilnius.label).toBe('Vilniaus miesto savivaldybė');
    expect(vilnius.locations).toEqual(['Vilniaus m. sav.', 'Vilniaus miesto savivaldybė', 'Vilnius']);
    expect(find(tree, 'LT-58').locations).toEqual(['Vilniaus r. sav.', 'Vilniaus rajono savivaldybė']);
    const county = find(tree, 'LT-VL');
    expect(county.label).toBe('Vilniaus apskritis');
    expect(county.locations).toContain('Vilnius');
    expect(county.locations).toContain('Elektrėnų sav.');
    expect(ref.locationLeaves.find((l) => l.name === 'Vilniaus m. sav.')?.path).toEqual([
      'Vilniaus apskritis',
      'Vilniaus m. sav.',
    ]);
  });

  it('adds a city name exactly to the seven city municipalities of the source file', () => {
    const rows = parseCsvRecords(readDataFile('ltRegions'), ',', 'lt');
    const cities = rows
      .filter((r) => r['region_level_2_type'] === 'city municipality')
      .map((r) => r['level_2_region_code']);
    expect(cities).toHaveLength(7);
    for (const { node, depth } of walk(tree)) {
      if (depth !== 2) continue;
      expect(node.locations?.length).toBe(cities.includes(node.kood) ? 3 : 2);
    }
  });
});

describe('fullMunicipalityName', () => {
  it('spells out the m., r. and sav. abbreviations', () => {
    expect(fullMunicipalityName('Kauno m. sav.')).toBe('Kauno miesto savivaldybė');
    expect(fullMunicipalityName('Kauno r. sav.')).toBe('Kauno rajono savivaldybė');
    expect(fullMunicipalityName('Kazlų Rūdos sav.')).toBe('Kazlų Rūdos savivaldybė');
  });

  it('refuses a name that is not in the short form', () => {
    expect(() => fullMunicipalityName('Vilnius')).toThrow(/not in the/);
  });
});

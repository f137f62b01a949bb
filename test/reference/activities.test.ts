import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES } from '../../src/contract/countries.ts';
import { loadReference } from '../../ingest/reference/index.ts';
import { countByDepth, find, leavesOf, walk } from './tree-helpers.ts';

const NATIVE: Record<string, string | null> = {
  EE: 'et',
  LV: null,
  LT: null,
  // SN2025 has no Bokmål file: its levels 1-4 are NACE Rev. 2.1 in English (docs/reference-data.md).
  NO: null,
  FI: null,
  PL: 'pl',
  SE: 'sv',
};

describe.each(COUNTRY_CODES)('%s activity reference', (country) => {
  const ref = loadReference(country);
  const languages = Object.keys(ref.activityTrees);

  it('offers English, plus the native language where the classifier has labels', () => {
    const native = NATIVE[country];
    expect(languages.sort()).toEqual(native ? ['en', native].sort() : ['en']);
  });

  it('has a unique kood for every node of every tree', () => {
    for (const tree of Object.values(ref.activityTrees)) {
      const koods = [...walk(tree)].map((w) => w.node.kood);
      expect(new Set(koods).size).toBe(koods.length);
    }
  });

  it('roots every tree at section letters', () => {
    for (const tree of Object.values(ref.activityTrees)) {
      for (const root of tree) expect(root.kood).toMatch(/^[A-V]$/);
    }
  });

  it('has the same codes in the same order in every language', () => {
    const shape = (lang: string): string[] =>
      [...walk(ref.activityTrees[lang] ?? [])].map((w) => w.node.kood);
    for (const lang of languages) expect(shape(lang)).toEqual(shape('en'));
  });

  it('lists exactly the leaves of every tree as activityLeaves, each with its section', () => {
    const leafKoods = ref.activityLeaves.map((l) => l.kood);
    expect(new Set(leafKoods).size).toBe(leafKoods.length);
    for (const tree of Object.values(ref.activityTrees)) {
      expect(leavesOf(tree).map((n) => n.kood)).toEqual(leafKoods);
      for (const root of tree) {
        for (const leaf of leavesOf([root])) {
          expect(ref.activityLeaves.find((l) => l.kood === leaf.kood)?.section).toBe(root.kood);
        }
      }
    }
  });

  it('labels every node', () => {
    for (const tree of Object.values(ref.activityTrees)) {
      for (const { node } of walk(tree)) expect(node.label.trim()).not.toBe('');
    }
    for (const leaf of ref.activityLeaves) expect(leaf.label.trim()).not.toBe('');
  });
});

describe('activity classifier counts match the source files', () => {
  it('EE: EMTAK 2025 has 22 sections, 87 divisions, 287 groups, 651 classes and 826 national subclasses', () => {
    const ref = loadReference('EE');
    expect(countByDepth(ref.activityTrees['et'] ?? [])).toEqual([22, 87, 287, 651, 826]);
    expect(ref.activityLeaves.every((l) => /^\d{5}$/.test(l.kood))).toBe(true);
  });

  it.each(['LV', 'LT', 'FI'] as const)('%s: NACE Rev. 2.1 has 22 sections down to 651 classes', (country) => {
    const ref = loadReference(country);
    expect(countByDepth(ref.activityTrees['en'] ?? [])).toEqual([22, 87, 287, 651]);
  });

  it('NO: SN2025 is NACE Rev. 2.1 in SSB spelling down to 651 classes, plus the national leaves BRREG names', () => {
    const ref = loadReference('NO');
    expect(ref.activityEdition).toBe('SN2025');
    expect(countByDepth(ref.activityTrees['en'] ?? [])).toEqual([22, 87, 287, 651, 1]);
    expect(ref.activityLeaves.every((l) => /^\d\d\.\d\d\d?$/.test(l.kood))).toBe(true);
    expect(ref.activityLeaves).toHaveLength(651);
  });

  it('PL: PKD 2025 has 22 sekcje, 87 działy, 287 grupy, 651 klasy and 728 podklasy', () => {
    const ref = loadReference('PL');
    expect(ref.activityEdition).toBe('PKD 2025');
    expect(countByDepth(ref.activityTrees['pl'] ?? [])).toEqual([22, 87, 287, 651, 728]);
    expect(ref.activityLeaves.every((l) => /^\d\d\.\d\d\.[A-Z]$/.test(l.kood))).toBe(true);
  });

  it('SE: SNI 2025 has 22 avdelningar, 87 huvudgrupper and 835 detaljgrupper under NACE Rev. 2.1 levels', () => {
    const ref = loadReference('SE');
    expect(ref.activityEdition).toBe('SNI 2025');
    expect(countByDepth(ref.activityTrees['sv'] ?? [])).toEqual([22, 87, 287, 651, 835]);
    expect(ref.activityLeaves.every((l) => /^\d{5}$/.test(l.kood))).toBe(true);
  });
});

describe('activity codes and labels from the real classifiers', () => {
  it('EE: EMTAK 62101 is Programmeerimine, in English the NACE class it alone makes up', () => {
    const ref = loadReference('EE');
    expect(find(ref.activityTrees['et'] ?? [], '62101').label).toBe('Programmeerimine');
    expect(find(ref.activityTrees['en'] ?? [], '62101').label).toBe('Computer programming activities');
    expect(find(ref.activityTrees['en'] ?? [], 'K').label).toMatch(
      /^TELECOMMUNICATION, COMPUTER PROGRAMMING/,
    );
    expect(ref.activityLeaves.find((l) => l.kood === '62101')).toEqual({
      kood: '62101',
      label: 'Programmeerimine',
      section: 'K',
    });
  });

  it('EE: a national subclass that splits its class keeps its Estonian label in the English tree', () => {
    const ref = loadReference('EE');
    expect(find(ref.activityTrees['en'] ?? [], '62201').label).toBe('Arvutialased konsultatsioonid');
    expect(find(ref.activityTrees['en'] ?? [], '6220').label).toBe(
      'Computer consultancy and computer facilities management activities',
    );
  });

  it('LV and FI use undotted NACE Rev. 2.1 classes, LT dotted EVRK 2.1 ones', () => {
    expect(find(loadReference('LV').activityTrees['en'] ?? [], '6210').label).toBe(
      'Computer programming activities',
    );
    expect(find(loadReference('FI').activityTrees['en'] ?? [], '6210').children).toEqual([]);
    const lt = loadReference('LT').activityTrees['en'] ?? [];
    expect(find(lt, '62.10').label).toBe('Computer programming activities');
    expect(find(lt, '62.1').children.map((c) => c.kood)).toEqual(['62.10']);
  });

  it("NO: SN2025 84.110 is BRREG's Generell offentlig administrasjon, the only child of NACE 84.11", () => {
    const ref = loadReference('NO');
    const en = ref.activityTrees['en'] ?? [];
    expect(find(en, '84.11').children.map((c) => c.kood)).toEqual(['84.110']);
    // Its English label is its class's, which it alone makes up; companies carry BRREG's Bokmål text.
    expect(find(en, '84.110').label).toBe(find(en, '84.11').label);
    expect(ref.activityLeaves.find((l) => l.kood === '84.110')).toEqual({
      kood: '84.110',
      label: 'Generell offentlig administrasjon',
      section: 'P',
    });
    // Rev. 2.1 classes, not SN2007's: 62.10 replaces 62.01, and SN2007's five-digit codes are gone.
    expect(find(en, '62.10').label).toBe('Computer programming activities');
    expect(ref.activityLeaves.some((l) => l.kood === '62.01' || l.kood === '43.221')).toBe(false);
  });

  it('PL: PKD 2025 splits 62.10 into 62.10.A (games) and 62.10.B, with GUS names and Rev. 2.1 English', () => {
    const ref = loadReference('PL');
    const pl = ref.activityTrees['pl'] ?? [];
    expect(find(pl, '62.10').children.map((c) => [c.kood, c.label])).toEqual([
      ['62.10.A', 'Działalność w zakresie programowania gier komputerowych'],
      ['62.10.B', 'Pozostała działalność w zakresie programowania'],
    ]);
    expect(find(pl, 'K').label).toMatch(/^DZIAŁALNOŚĆ USŁUGOWA W ZAKRESIE TELEKOMUNIKACJI/);
    expect(find(ref.activityTrees['en'] ?? [], '62.10').label).toBe('Computer programming activities');
    // A division GUS puts on one row with its group, class and podklasa (31 Produkcja mebli).
    expect(find(pl, '31.00.Z').label).toBe('Produkcja mebli');
    expect(ref.activityLeaves.find((l) => l.kood === '62.10.B')).toEqual({
      kood: '62.10.B',
      label: 'Pozostała działalność w zakresie programowania',
      section: 'K',
    });
    expect(ref.activityLeaves.some((l) => l.kood === '62.01.Z')).toBe(false);
  });

  it('SE: SNI 2025 62100 is Dataprogrammering, under section K with its Swedish name', () => {
    const ref = loadReference('SE');
    const sv = ref.activityTrees['sv'] ?? [];
    expect(find(sv, '62100').label).toBe('Dataprogrammering');
    expect(find(sv, '6210').label).toBe('Computer programming activities');
    expect(find(sv, '62').label).toBe('Dataprogrammering, datakonsultverksamhet o.d.');
    expect(find(sv, 'K').label).toMatch(/^TELEKOMMUNIKATION, DATAPROGRAMMERING/);
    expect(ref.activityLeaves.find((l) => l.kood === '62100')).toEqual({
      kood: '62100',
      label: 'Dataprogrammering',
      section: 'K',
    });
    // SNI 2007's 62010 is retired: not a leaf, mapped forward.
    expect(ref.activityLeaves.some((l) => l.kood === '62010')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { resolveKommune } from '../../ingest/official/no/kommune.ts';
import { loadReference } from '../../ingest/reference/index.ts';

/*
 * Kommunenummer of earlier structures onto the served one through SSB's own KLASS 131 change table
 * (ingest/official/data/ssb_klass_131_changes_1971_2025.json). The expected codes are the ones SSB and
 * Kartverket give for these municipalities (Halden 0101 → 3001 in Viken → 3101 in Østfold; Tromsø 1902 →
 * 5401 → 5501; Kristiansand's 2020 merger 4204; Bergen 1201 → 4601).
 */

const current = new Set(
  loadReference('NO')
    .locationLeaves.map((l) => l.kood)
    .filter((k): k is string => k !== null),
);

describe('kommunenummer across the 2020 and 2024 reforms', () => {
  it('keeps a current code', () => {
    expect(resolveKommune('1813', current)).toBe('1813');
    expect(resolveKommune('0301', current)).toBe('0301');
  });

  it('follows a code through both reforms', () => {
    expect(resolveKommune('0101', current)).toBe('3101');
    expect(resolveKommune('3001', current)).toBe('3101');
    expect(resolveKommune('5401', current)).toBe('5501');
    expect(resolveKommune('1902', current)).toBe('5501');
    expect(resolveKommune('0219', current)).toBe('3201');
    expect(resolveKommune('3024', current)).toBe('3201');
  });

  it('follows mergers into one successor', () => {
    expect(resolveKommune('1001', current)).toBe('4204');
    expect(resolveKommune('1018', current)).toBe('4204');
    expect(resolveKommune('1201', current)).toBe('4601');
  });

  it('leaves a code whose chain splits unmapped (no single successor)', () => {
    // Tysfjord split between Narvik and Hammarøy in 2020; Ålesund 2020-2023 split into Ålesund and Haram.
    expect(resolveKommune('1850', current)).toBeNull();
    expect(resolveKommune('1507', current)).toBeNull();
    expect(resolveKommune('9999', current)).toBeNull();
  });
});

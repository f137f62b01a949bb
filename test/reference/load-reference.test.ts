import { describe, expect, it } from 'vitest';
import { COUNTRIES, COUNTRY_CODES } from '../../src/contract/countries.ts';
import { buildCountryReference } from '../../ingest/reference/country-reference.ts';
import { DATA_FILES } from '../../ingest/reference/data-files.ts';
import { loadReference } from '../../ingest/reference/index.ts';

describe('loadReference', () => {
  it('returns one shared, deep-frozen object per country', () => {
    const ee = loadReference('EE');
    expect(loadReference('EE')).toBe(ee);
    expect(Object.isFrozen(ee.activityLeaves)).toBe(true);
    expect(Object.isFrozen(ee.locationTree?.[0]?.children[0])).toBe(true);
    expect(() => (ee.activityLeaves as unknown[]).push({})).toThrow(TypeError);
  });

  it.each(COUNTRY_CODES)('%s names its industry system and every file it was built from', (country) => {
    const ref = loadReference(country);
    expect(ref.country).toBe(country);
    expect(ref.industrySystem).toBe(COUNTRIES[country].industrySystem);
    const known = new Set<string>(Object.values(DATA_FILES).map((f) => f.file));
    expect(ref.sources.length).toBeGreaterThan(0);
    for (const s of ref.sources) {
      expect(known.has(s.file)).toBe(true);
      expect(s.licence).not.toBe('');
    }
  });

  it('builds every country from the raw files in well under the budget', () => {
    const started = process.cpuUsage();
    for (const country of COUNTRY_CODES) buildCountryReference(country);
    // The budget is 1 s, measured in this process's CPU time: wall time on a two-core machine shared with
    // other work grows with their load, not with this code. The bound is still loose.
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(3_000);
  });
});

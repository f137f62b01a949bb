import type { CountryCode } from '../../src/contract/countries.ts';
import { buildCountryReference } from './country-reference.ts';
import type { CountryReference } from './types.ts';

export type { ActivityLeaf, CountryReference, LocationLeaf, TreeNode } from './types.ts';

const cache = new Map<CountryCode, CountryReference>();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * The activity and location reference of one country, built from the real classifier files in
 * ingest/reference/data/ (docs/reference-data.md). Synchronous and cached per process. Every caller gets
 * the same object, so it is deep-frozen: copy before sorting or editing.
 */
/**
 * The reference of a country registered by a test (registerCountry in src/contract/countries.ts), which
 * has no classifier files of its own in ingest/reference/data/.
 */
export function registerReference(reference: CountryReference): void {
  if (cache.has(reference.country)) throw new Error(`reference ${reference.country} is loaded already`);
  cache.set(reference.country, deepFreeze(reference));
}

export function loadReference(country: CountryCode): CountryReference {
  let reference = cache.get(country);
  if (!reference) {
    reference = deepFreeze(buildCountryReference(country));
    cache.set(country, reference);
  }
  return reference;
}

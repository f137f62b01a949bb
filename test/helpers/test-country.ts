import { registerCountry, type CountryCode } from '../../src/contract/countries.ts';
import { loadReference, registerReference } from '../../ingest/reference/index.ts';
import { PROFILES, registerWorldProfile } from '../../ingest/world/profiles/index.ts';

/**
 * A throwaway country that exists only here: 'ZZ' is an ISO 3166 user-assigned code, never a real
 * country. It is what docs/adding-a-country.md says a country needs, declared in a test: its profile
 * (registerCountry), its reference data and its world profile. It borrows Estonia's classifiers and
 * world data (codes, names, forms), but not Estonia's rules: its own code format (the family numbers
 * without a check digit), people as initials, sole traders not for sale, no history, no workplaces.
 * Importing this module registers it, so import it before anything that builds schemas from the country
 * list (the app); the test imports those dynamically.
 */
export const TEST_COUNTRY = 'ZZ' as CountryCode;

registerCountry({
  code: TEST_COUNTRY,
  name: 'Testland',
  currency: 'EUR',
  defaultRowPrice: 0.5,
  registrationCode: { describe: '7 digits, the first not 0', isValid: (c) => /^[1-9]\d{6}$/.test(c) },
  industrySystem: 'EMTAK',
  nativeLanguage: 'et',
  locationTree: 'codes',
  hasHistory: false,
  people: 'initials',
  soleTraders: { forSale: false, withoutCode: false },
  workplaces: false,
});

registerReference({ ...loadReference('EE'), country: TEST_COUNTRY });

registerWorldProfile(TEST_COUNTRY, { ...PROFILES.EE, total: 2_000 });

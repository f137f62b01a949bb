import { COUNTRIES, type CountryCode } from '../contract/countries.ts';
import {
  type CompanyDetail,
  type CountParams,
  type HistoryData,
  type SearchData,
  type SearchParams,
  type WorkplacesData,
} from '../contract/api-schemas.ts';
import { AppError } from '../errors/app-error.ts';
import type { Engine } from '../engine/engine.ts';
import { assertUpdatedSince } from './changes.ts';
import { withForwardIndustryCodes } from './industry-codes.ts';
import { withRawItems } from './raw-items.ts';

/**
 * Company operations of spec 4.3-4.6, shared by the REST routes and the MCP tools. They take parsed
 * parameters (src/contract/api-schemas.ts) and return the `data` part of each envelope; metering wraps them.
 */

export interface CompanyRef {
  country: CountryCode;
  registrikood: string;
}

/** Spec 4.4: a code that fails its country's format is a 400, checked before anything is reserved or run. */
export function assertRegistrationCode(ref: CompanyRef): void {
  const rule = COUNTRIES[ref.country].registrationCode;
  if (!rule.isValid(ref.registrikood)) {
    throw new AppError(
      'malformed_registration_code',
      `malformed registration code for ${ref.country}: expected ${rule.describe}`,
    );
  }
}

function notFound(ref: CompanyRef): AppError {
  return new AppError('not_found', `no company with registration code ${ref.registrikood} in ${ref.country}`);
}

export async function countCompanies(engine: Engine, params: CountParams) {
  const count = await engine.use(async (snap) => {
    assertUpdatedSince(snap, params);
    return snap.planCount(withForwardIndustryCodes(snap, params));
  });
  return { country: params.country, count, count_mode: 'exact' };
}

/**
 * One page and the total, from the plan on the posting lists (planner.ts): the total is the result's
 * cardinality, the page is read off it in the sort's order, and the rows come from the lookup store.
 */
export async function searchCompanies(engine: Engine, params: SearchParams): Promise<SearchData> {
  const page = await engine.use(async (snap) => {
    assertUpdatedSince(snap, params);
    return snap.searchPage(withForwardIndustryCodes(snap, params));
  });
  return withRawItems<SearchData>(page.rows, page.rids.length, {
    page: params.page,
    page_size: params.page_size,
    total: page.total,
    sort_by: params.sort_by,
    sort_dir: params.sort_dir,
  });
}

/** "Jan Maria Kowalski" -> "J. M. K." (spec 2.3: Polish person names are served as initials). */
export function initials(name: string): string {
  return name
    .split(/[\s-]+/u)
    .filter(Boolean)
    .map((part) => `${[...part][0]?.toUpperCase() ?? ''}.`)
    .join(' ');
}

/** A JSON document of the lookup store (lookup-store.ts), or the fallback when the company has none. */
function parseDoc<T>(doc: string | null, fallback: T): T {
  return doc === null ? fallback : (JSON.parse(doc) as T);
}

export async function getCompany(engine: Engine, ref: CompanyRef): Promise<CompanyDetail> {
  assertRegistrationCode(ref);
  return engine.use(async (snap) => {
    // The lookup store holds for-sale companies only, so no document means 404.
    const detail = snap.lookup('detail', () =>
      snap.lookups(ref.country).detail(ref.registrikood),
    ) as CompanyDetail | null;
    if (!detail) throw notFound(ref);
    if (COUNTRIES[ref.country].people === 'initials') {
      // Legal persons (isiku_tyyp J) are company names, not person names, and stay as they are.
      detail.people = detail.people.map((p) => (p.isiku_tyyp === 'J' ? p : { ...p, nimi: initials(p.nimi) }));
    }
    return detail;
  });
}

type Period = HistoryData['periods'][number];

export async function getHistory(engine: Engine, ref: CompanyRef): Promise<HistoryData> {
  assertRegistrationCode(ref);
  // Every for-sale company has a row, with its periods or none; no row means 404.
  const company = await engine.use(async (snap) =>
    snap.lookup('history', () => snap.lookups(ref.country).history(ref.registrikood)),
  );
  if (!company) throw notFound(ref);
  // Chronological order is fixed when the document is built (serving-build.ts).
  const periods = parseDoc<Period[]>(company.doc, []);
  const kinds = new Set(periods.map((p) => p.granularity));
  const granularity = kinds.size === 0 ? 'none' : kinds.size === 1 ? [...kinds][0]! : 'mixed';
  return {
    registrikood: ref.registrikood,
    arinimi: company.arinimi,
    country: ref.country,
    granularity,
    periods,
  };
}

/** Attribution used when a company row carries no SCB source text. */
export const SCB_ATTRIBUTION = 'Statistics Sweden (SCB), Business Register (Företagsregistret)';

type Workplace = WorkplacesData['workplaces'][number];

/**
 * Spec 2.5: addresses and coordinates are null under a postal block of the workplace or its company, the
 * phone under a telephone block of either. The files keep the values; only the API withholds them.
 */
export function applyWorkplaceBlocks(
  w: Workplace,
  company: { marketing_optout: boolean | null; phone_optout: boolean | null },
): Workplace {
  const postal = w.marketing_optout || company.marketing_optout === true;
  const phone = w.phone_optout || company.phone_optout === true;
  return {
    ...w,
    ...(postal && {
      visit_address: null,
      visit_postcode: null,
      visit_town: null,
      postal_address: null,
      postal_code: null,
      postal_town: null,
      sweref99tm_n: null,
      sweref99tm_e: null,
    }),
    ...(phone && { phone: null }),
  };
}

export async function getWorkplaces(engine: Engine, ref: CompanyRef): Promise<WorkplacesData> {
  assertRegistrationCode(ref);
  // Every for-sale company has a row with its blocks, its SCB source and its active workplaces (or none).
  const company = await engine.use(async (snap) =>
    snap.lookup('workplaces', () => snap.lookups(ref.country).workplaces(ref.registrikood)),
  );
  if (!company) throw notFound(ref);
  return {
    registrikood: ref.registrikood,
    workplaces: parseDoc<Workplace[]>(company.doc, []).map((w) => applyWorkplaceBlocks(w, company)),
    source: company.source ?? SCB_ATTRIBUTION,
  };
}

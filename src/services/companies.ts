import { COUNTRIES, type CountryCode } from '../contract/countries.ts';
import {
  CompanyDetailSchema,
  type CompanyDetail,
  type CompanyRow,
  type CountParams,
  type HistoryData,
  type SearchData,
  type SearchParams,
  type WorkplacesData,
} from '../contract/api-schemas.ts';
import { REGISTRATION_CODE_RULES } from '../contract/registration-codes.ts';
import { AppError } from '../errors/app-error.ts';
import type { Engine } from '../engine/engine.ts';
import { buildCountQuery, buildSearchQuery } from '../engine/query-builder.ts';
import { tables } from '../engine/tables.ts';

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
  const rule = REGISTRATION_CODE_RULES[ref.country];
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
  const rows = await engine.use((snap) => {
    const q = buildCountQuery(params, snap.context(params.country));
    return snap.query('count', q.sql, q.params);
  });
  return { country: params.country, count: Number(rows[0]?.['n'] ?? 0), count_mode: 'exact' };
}

/**
 * One page and the total. The count is a separate statement: COUNT(*) OVER () was 4-10x slower in the
 * research on this machine and has crashed DuckDB 1.5.x. Both run at once on two pool connections.
 */
export async function searchCompanies(engine: Engine, params: SearchParams): Promise<SearchData> {
  const [items, counted] = await engine.use((snap) => {
    const ctx = snap.context(params.country);
    const page = buildSearchQuery(params, ctx);
    const count = buildCountQuery(params, ctx);
    return Promise.all([
      snap.query('search', page.sql, page.params),
      snap.query('count', count.sql, count.params),
    ]);
  });
  return {
    items: items as CompanyRow[],
    page: params.page,
    page_size: params.page_size,
    total: Number(counted[0]?.['n'] ?? 0),
    sort_by: params.sort_by,
    sort_dir: params.sort_dir,
  };
}

const DETAIL_COLUMNS = Object.keys(CompanyDetailSchema.shape)
  .map((c) => `"${c}"`)
  .join(', ');

/** "Jan Maria Kowalski" -> "J. M. K." (spec 2.3: Polish person names are served as initials). */
export function initials(name: string): string {
  return name
    .split(/[\s-]+/u)
    .filter(Boolean)
    .map((part) => `${[...part][0]?.toUpperCase() ?? ''}.`)
    .join(' ');
}

export async function getCompany(engine: Engine, ref: CompanyRef): Promise<CompanyDetail> {
  assertRegistrationCode(ref);
  const rows = await engine.use((snap) =>
    snap.query(
      'detail',
      `SELECT ${DETAIL_COLUMNS} FROM ${tables(ref.country).companies} WHERE registrikood = ?`,
      [ref.registrikood],
    ),
  );
  const row = rows[0] as CompanyDetail | undefined;
  if (!row) throw notFound(ref);
  if (ref.country === 'PL') {
    // Legal persons (isiku_tyyp J) are company names, not person names, and stay as they are.
    row.people = row.people.map((p) => (p.isiku_tyyp === 'J' ? p : { ...p, nimi: initials(p.nimi) }));
  }
  return row;
}

type Period = HistoryData['periods'][number];

export async function getHistory(engine: Engine, ref: CompanyRef): Promise<HistoryData> {
  assertRegistrationCode(ref);
  const t = tables(ref.country);
  const [company, periods] = await engine.use((snap) =>
    Promise.all([
      snap.query('history_company', `SELECT arinimi FROM ${t.companies} WHERE registrikood = ?`, [
        ref.registrikood,
      ]),
      COUNTRIES[ref.country].hasHistory
        ? snap.query(
            'history',
            // Chronological: a year's sub-periods first, then its annual / year-to-date / snapshot rows.
            `SELECT period, granularity, "year", quarter, "month", turnover, employees, state_taxes,
                    labour_taxes, as_of
             FROM ${t.history} WHERE registrikood = ?
             ORDER BY "year", (quarter = 0 AND "month" = 0), quarter, "month", granularity`,
            [ref.registrikood],
          )
        : Promise.resolve([]),
    ]),
  );
  if (!company[0]) throw notFound(ref);
  const rows = periods as Period[];
  const kinds = new Set(rows.map((p) => p.granularity));
  const granularity = kinds.size === 0 ? 'none' : kinds.size === 1 ? [...kinds][0]! : 'mixed';
  return {
    registrikood: ref.registrikood,
    arinimi: (company[0]['arinimi'] as string | null) ?? null,
    country: ref.country,
    granularity,
    periods: rows,
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
  const t = tables(ref.country);
  const [company, workplaces] = await engine.use((snap) =>
    Promise.all([
      snap.query(
        'workplaces_company',
        `SELECT marketing_optout, phone_optout, se_register.source AS source FROM ${t.companies}
         WHERE registrikood = ?`,
        [ref.registrikood],
      ),
      snap.query(
        'workplaces',
        `SELECT cfar_nr, name, is_main, visit_address, visit_postcode, visit_town, postal_address,
                postal_code, postal_town, kommun_code, kommun_name, activity_codes, employees_band_code,
                phone, email, sweref99tm_n, sweref99tm_e, marketing_optout, phone_optout
         FROM ${t.workplaces} WHERE registrikood = ? ORDER BY is_main DESC, cfar_nr`,
        [ref.registrikood],
      ),
    ]),
  );
  const c = company[0] as
    { marketing_optout: boolean | null; phone_optout: boolean | null; source: string | null } | undefined;
  if (!c) throw notFound(ref);
  return {
    registrikood: ref.registrikood,
    workplaces: (workplaces as Workplace[]).map((w) => applyWorkplaceBlocks(w, c)),
    source: c.source ?? SCB_ATTRIBUTION,
  };
}

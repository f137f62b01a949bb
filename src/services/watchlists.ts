import {
  CountJsonObject,
  CountQueryObject,
  FILTER_PARAMS,
  refineJsonFilters,
  toCountParams,
} from '../contract/api-schemas.ts';
import { COUNTRIES, type CountryCode } from '../contract/countries.ts';
import type { WatchlistCreateBody } from '../contract/watchlist-schemas.ts';
import { validationError, type ValidationIssue } from '../errors/app-error.ts';
import { arrayParams } from '../http/query-params.ts';
import type { Watchlist, Watchlists } from '../watchlists/watchlists.ts';

/**
 * What REST, MCP and the dashboard share of watchlists (issue 31): the checks a request's codes and saved
 * search get before the wallet stores them, so a watchlist never holds what a publish cannot evaluate.
 */

/** Every code must be the country's shape (spec 4.4's rule): a 422 naming each bad one by its place. */
export function checkCodes(country: CountryCode, codes: readonly string[], at: (string | number)[]): void {
  const rule = COUNTRIES[country].registrationCode;
  const issues: ValidationIssue[] = [];
  codes.forEach((code, i) => {
    if (!rule.isValid(code)) {
      issues.push({
        loc: [...at, i],
        param: String(at.at(-1) ?? 'companies'),
        msg: `${JSON.stringify(code.slice(0, 40))} is not a ${country} registration code (${rule.describe})`,
        type: 'malformed_registration_code',
      });
    }
  });
  if (issues.length > 0) throw validationError(issues.slice(0, 20));
}

/** The saved search is /count's JSON arguments: the same rules, so it always means what /count means. */
export function checkSearch(country: CountryCode, search: Record<string, unknown>): void {
  const parsed = CountJsonObject.superRefine(refineJsonFilters)
    .transform(toCountParams)
    .safeParse({ ...search, country });
  if (parsed.success) return;
  throw validationError(
    parsed.error.issues.map((i) => {
      const custom = i.code === 'custom' ? (i.params as { type?: unknown } | undefined)?.type : undefined;
      return {
        loc: ['body', 'search', ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))],
        param: 'search',
        msg: i.message,
        type: typeof custom === 'string' ? custom : i.code,
      };
    }),
  );
}

export async function createWatchlist(
  lists: Watchlists,
  accountId: string,
  body: WatchlistCreateBody,
): Promise<Watchlist> {
  if (body.companies) {
    checkCodes(body.country, body.companies, ['body', 'companies']);
    return lists.create(accountId, { name: body.name, country: body.country, companies: body.companies });
  }
  const search = body.search as Record<string, unknown>;
  checkSearch(body.country, search);
  return lists.create(accountId, { name: body.name, country: body.country, search });
}

export async function addToWatchlist(
  lists: Watchlists,
  accountId: string,
  id: string,
  codes: readonly string[],
): Promise<Watchlist> {
  const list = await lists.get(accountId, id);
  checkCodes(list.country, codes, ['body', 'companies']);
  return lists.addCompanies(accountId, id, codes);
}

/** A registration-code list as people paste it: one a line, or separated by commas, semicolons or spaces. */
export function splitCodes(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((c) => c.trim())
    .filter((c) => c.length > 0);
}

const QUERY_ARRAYS = arrayParams(CountQueryObject);
const ALIASES = new Map(FILTER_PARAMS.filter((p) => p.alias).map((p) => [p.alias as string, p.english]));

/**
 * A saved search from a /count query string (the in-app search's "Watch this search", or one pasted from
 * a REST call): parsed by /count's own query schema, then written with the English names as the JSON
 * arguments a watchlist keeps. `country` in the string must be the watchlist's, or absent.
 */
export function searchFromQuery(country: CountryCode, query: string): Record<string, unknown> {
  const raw: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(query.trim().replace(/^\?/, ''))) {
    if (v === '') continue;
    const prev = raw[k];
    raw[k] = prev === undefined ? (QUERY_ARRAYS.has(k) ? [v] : v) : [prev, v].flat();
  }
  const { country: sent, ...filters } = raw;
  if (sent !== undefined && sent !== country) {
    throw validationError([
      {
        loc: ['body', 'search', 'country'],
        param: 'search',
        msg: `the filters are for country ${String(sent)}, the watchlist is for ${country}`,
        type: 'conflicting_parameters',
      },
    ]);
  }
  const parsed = CountQueryObject.safeParse({ ...filters, country });
  if (!parsed.success) {
    throw validationError(
      parsed.error.issues.map((i) => ({
        loc: ['body', 'search', ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))],
        param: String(i.path[0] ?? 'search'),
        msg: i.message,
        type: i.code,
      })),
    );
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parsed.data)) {
    if (k === 'country' || v === undefined) continue;
    out[ALIASES.get(k) ?? k] = v;
  }
  return out;
}

/**
 * A saved search as one line people read: `legal_form: OÜ, AS; vat_active: true`; a filter with more than
 * `perFilter` values (a location node sends all its codes) names the first ones and how many more.
 */
export function searchText(search: Record<string, unknown> | null, perFilter = Infinity): string {
  if (!search) return '';
  const parts = Object.entries(search).map(([k, v]) => {
    const values = (Array.isArray(v) ? v : [v]).map(String);
    const more = values.length > perFilter ? ` and ${values.length - perFilter} more` : '';
    return `${k}: ${values.slice(0, perFilter).join(', ')}${more}`;
  });
  return parts.length > 0 ? parts.join('; ') : 'every company of the country';
}

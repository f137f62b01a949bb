import { CountJsonObject, refineJsonFilters, toCountParams } from '../contract/api-schemas.ts';
import { COUNTRIES, type CountryCode } from '../contract/countries.ts';
import type { WatchlistCreateBody } from '../contract/watchlist-schemas.ts';
import { validationError, type ValidationIssue } from '../errors/app-error.ts';
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

import type { Watchlists } from '../../watchlists/watchlists.ts';
import type { ToolDef } from '../tool.ts';
import { countCompaniesTool } from './count-companies.ts';
import { estimateCostTool } from './estimate-cost.ts';
import { exportCompaniesTool } from './export-companies.ts';
import { getCompanyHistoryTool } from './get-company-history.ts';
import { getCompanyWorkplacesTool } from './get-company-workplaces.ts';
import { getCompanyTool } from './get-company.ts';
import { listActivitiesTool } from './list-activities.ts';
import { listChangesTool } from './list-changes.ts';
import { listCountriesTool } from './list-countries.ts';
import { listEventsTool } from './list-events.ts';
import { listFiltersTool } from './list-filters.ts';
import { listLocationsTool } from './list-locations.ts';
import { manageWatchlistsTool } from './manage-watchlists.ts';
import { searchCompaniesTool } from './search-companies.ts';

/**
 * The nine tools of spec part 1, the change feed, the export (as a signed download link) and the cost
 * estimate of issue 19, in the order an agent uses them; metered descriptions carry the prices. With
 * watchlists (issue 31), their management and the pull of their events follow, as on REST.
 */
export function buildTools(prices: Readonly<Record<string, number>>, watchlists?: Watchlists): ToolDef[] {
  const watching = watchlists ? [manageWatchlistsTool(watchlists), listEventsTool(prices)] : [];
  return [
    listCountriesTool,
    listFiltersTool,
    listActivitiesTool,
    listLocationsTool,
    countCompaniesTool,
    searchCompaniesTool(prices),
    getCompanyTool(prices),
    getCompanyHistoryTool(prices),
    getCompanyWorkplacesTool(prices),
    listChangesTool(prices),
    exportCompaniesTool(prices),
    estimateCostTool,
    ...watching,
  ];
}

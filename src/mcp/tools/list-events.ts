import {
  EventsDataSchema,
  EventsQuerySchema,
  type WatchlistEvent,
} from '../../contract/watchlist-schemas.ts';
import { defineTool } from '../tool.ts';
import { MeteredOutput, meteredAnswer, priceList } from './common.ts';
import { MCP_DEFAULT_PAGE_SIZE, MCP_MAX_PAGE_SIZE, feedPageSize, fieldText } from './list-changes.ts';

/** `- <id> EE 10000018 changed: arinimi "A" -> "B" [wl_x member, wl_y entered]` */
function eventLine(e: WatchlistEvent): string {
  const lists = e.watchlists.map((w) => `${w.id} ${w.membership}`).join(', ');
  return `- ${e.id} ${e.as_of} ${e.registrikood} ${e.change ?? 'search membership'}${fieldText(e)} [${lists}]`;
}

/** REST listEvents with MCP's page sizes; metered by the same Operations.events. */
export function listEventsTool(prices: Readonly<Record<string, number>>) {
  return defineTool({
    name: 'list_events',
    title: 'List watchlist events (metered)',
    description:
      "Your watchlists' events in one country, oldest first: each company a publish added, removed or " +
      'changed (the changed fields with before and after values), or that entered or left a saved ' +
      'search, with the watchlists it is on. Send the `next_after` of the previous page as `after` to ' +
      'resume; without `after`, from the oldest event kept (30 days). METERED: reserves page_size events ' +
      `at the country row price (${priceList(prices)}) and charges each event once per account; a page ` +
      `read again is free. page_size defaults to ${MCP_DEFAULT_PAGE_SIZE} here (max ${MCP_MAX_PAGE_SIZE}). ` +
      'Make watchlists with create_watchlist (free).',
    input: EventsQuerySchema.extend({
      page_size: feedPageSize('Events', 'each event is charged once per account'),
    }),
    output: MeteredOutput(EventsDataSchema),
    metered: true,
    async run({ ops, caller }, params) {
      const answer = await ops.events(caller, params);
      const { items, next_after, oldest } = answer.data;
      const from = params.after ? `after ${params.after}` : 'from the oldest kept';
      const next = next_after
        ? `Next page: after=${next_after}`
        : params.after
          ? `No new events; keep your cursor after=${params.after}.`
          : `No events yet${oldest ? '' : ' for this account'}; ask again after the next publish.`;
      const lines = [`${items.length} events in ${params.country} ${from}.`, ...items.map(eventLine), next];
      return meteredAnswer(answer, lines.join('\n'));
    },
  });
}

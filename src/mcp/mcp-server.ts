import { Server, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Tool } from '@modelcontextprotocol/server';
import { API_VERSION } from '../http/openapi.ts';
import { callTool, toolListing, type ToolContext, type ToolDef } from './tool.ts';
import { priceList } from './tools/common.ts';

export const SERVER_NAME = 'regdata';

const WATCHING =
  'To be told what changes: manage_watchlists (free) watches companies or a saved search of one ' +
  'country; after each publish, list_events gives the events of your watchlists (metered, each event ' +
  'once; resume with `after`).';

function instructions(prices: Readonly<Record<string, number>>, watching: boolean): string {
  return [
    'Official company-register data of seven countries: EE Estonia, LV Latvia, LT Lithuania, NO Norway, ' +
      'FI Finland, PL Poland, SE Sweden.',
    'Work in this order: (1) list_filters for the country (free): filters differ per country and one the ' +
      'country does not list is rejected; (2) list_activities / list_locations (free) for the codes the ' +
      'tree filters take; (3) count_companies (free) to check filters and size the result; ' +
      '(4) search_companies (metered per returned row; small pages, pick `fields`); (5) get_company, ' +
      'get_company_history, get_company_workplaces (SE only) for one company (metered, one row). To keep ' +
      'a list in sync, list_changes gives the companies added, removed or changed since a day or a ' +
      'snapshot (metered per returned item). For a list too big to page through, export_companies prices ' +
      'the whole result and returns a short-lived download link (CSV, NDJSON or Parquet; metered per row ' +
      'when downloaded).',
    `Prices in credits per returned row: ${priceList(prices)}. Every metered result has \`meta\` with ` +
      'the credits charged and the balance left.',
    'A failed call is a tool error whose text is JSON {"status", "detail"}: 400 malformed registration ' +
      'code, 402 not enough credits (nothing run), 404 no such company (nothing charged), 422 invalid ' +
      'arguments (detail lists each), 429 rate limited (wait and retry), 502 data backend unavailable ' +
      '(retry; nothing charged).',
    'Retrying a metered call safely: send `_meta: {"idempotency_key": "<unique id>"}` in the tools/call ' +
      'params; a retry with the same key and arguments within 24 h returns the first answer and is not ' +
      'charged again.',
    ...(watching ? [WATCHING] : []),
  ].join('\n');
}

/**
 * The MCP side of the nine operations, built once per process. The transport is stateless, so each HTTP
 * request gets its own small Server (two handlers over the precomputed tool list) bound to that request's
 * caller; nothing outlives the request.
 */
export class McpToolServer {
  private readonly listing: Tool[];
  private readonly byName: Map<string, ToolDef>;
  private readonly instructions: string;

  constructor(
    tools: readonly ToolDef[],
    private readonly prices: Readonly<Record<string, number>>,
  ) {
    this.listing = tools.map(toolListing);
    this.byName = new Map(tools.map((t) => [t.name, t]));
    this.instructions = instructions(prices, this.byName.has('list_events'));
  }

  get tools(): readonly Tool[] {
    return this.listing;
  }

  /** A Server for one request. The low-level Server, not McpServer: the listing is precomputed and the
   *  arguments are validated here so a 422 carries the REST `detail`, not the SDK's own message. */
  serverFor(ctx: Omit<ToolContext, 'prices'>, logError: (err: unknown) => void): Server {
    const server = new Server(
      { name: SERVER_NAME, version: API_VERSION },
      { capabilities: { tools: { listChanged: false } }, instructions: this.instructions },
    );
    const context: ToolContext = { ...ctx, prices: this.prices };
    server.setRequestHandler('tools/list', () => ({ tools: this.listing }));
    server.setRequestHandler('tools/call', (request) => {
      const def = this.byName.get(request.params.name);
      if (!def) {
        // MCP: an unknown tool is a protocol error, not a tool result.
        const known = [...this.byName.keys()].join(', ');
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `no tool ${request.params.name}; tools: ${known}`,
        );
      }
      return callTool(def, request.params.arguments, context, logError, request.params._meta);
    });
    return server;
  }
}

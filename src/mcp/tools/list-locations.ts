import { z } from 'zod';
import { LocationsQuerySchema, TreeResponseSchema } from '../../contract/api-schemas.ts';
import { defineTool } from '../tool.ts';
import { renderTree } from '../render.ts';
import { FREE } from './common.ts';

/** Without a query or depth the MCP tool answers the top level: whole trees reach 440 KB (PL). */
export const LOCATIONS_DEFAULT_DEPTH = 1;

export const listLocationsTool = defineTool({
  name: 'list_locations',
  title: 'Location codes of a country',
  description:
    'Location tree of EE, LV, LT, FI or PL (NO and SE have none, 400: use the free-text `location` ' +
    "filter there). How to filter by place: for EE/LV/FI/PL send a node's `codes` array (the node and " +
    'everything below it) as `ehak_kood`; its `kood` alone matches only companies tagged with exactly ' +
    "that code. For LT send a node's `locations` array as `lt_locations` (its `kood` does not work). " +
    'Pass `query` to find places by name (flat matches, at most 100, each with its full `codes`). ' +
    `Without \`query\` the tree is cut at \`max_depth\` (default ${LOCATIONS_DEFAULT_DEPTH} here). ${FREE}`,
  input: LocationsQuerySchema,
  output: z.object({ nodes: TreeResponseSchema }),
  metered: false,
  async run({ ops, caller }, args) {
    const maxDepth = args.max_depth ?? (args.query === undefined ? LOCATIONS_DEFAULT_DEPTH : undefined);
    const { data } = await ops.locations(caller, { ...args, max_depth: maxDepth });
    const text =
      args.query !== undefined && data.length === 0
        ? 'No matching location.'
        : renderTree(data, { codes: 'ehak_kood', locations: 'lt_locations' });
    return { structured: { nodes: data }, text };
  },
});

import { z } from 'zod';
import { ActivitiesQuerySchema, TreeResponseSchema } from '../../contract/api-schemas.ts';
import { defineTool } from '../tool.ts';
import { renderTree } from '../render.ts';
import { pruneTree, searchTree } from '../trees.ts';
import { FREE } from './common.ts';

/** Without a query the MCP tool cuts the tree here: sections and divisions, about 110 nodes. */
export const ACTIVITIES_DEFAULT_DEPTH = 2;

/** The tree view carries no `codes`: it says how to get the leaf codes of a branch. */
const TREE_HINT =
  'To filter by a branch, send its LEAF codes as industry_codes: call list_activities with ' +
  '`query` set to the branch code (e.g. "62") to get them.';

export const listActivitiesTool = defineTool({
  name: 'list_activities',
  title: 'Activity codes of a country',
  description:
    "The country's activity classification (EMTAK for EE, EVRK for LT, PKD for PL, SNI for SE, NACE " +
    'for LV, NO, FI). To filter by activity send LEAF codes as `industry_codes`: a parent code matches ' +
    'only companies tagged with exactly that code. Best: pass `query` (e.g. "software", or a code such ' +
    'as "62"): matching nodes come back flat, at most 100, each with `codes` = all leaf codes of its ' +
    'branch, ready to send as `industry_codes`. Without `query` the tree is cut at `max_depth` ' +
    `(default ${ACTIVITIES_DEFAULT_DEPTH}; whole trees are 90-155 KB). ${FREE}`,
  input: ActivitiesQuerySchema.extend({
    query: z
      .string()
      .min(2)
      .max(80)
      .optional()
      .describe('Case-insensitive search in labels and codes; flat matches with their leaf `codes`'),
    max_depth: z
      .number()
      .int()
      .min(1)
      .max(6)
      .optional()
      .describe(`Depth of the tree (1 = sections); default ${ACTIVITIES_DEFAULT_DEPTH} when no query`),
  }),
  output: z.object({ nodes: TreeResponseSchema }),
  metered: false,
  async run({ ops, caller }, args) {
    const { data } = await ops.activities(caller, { country: args.country, lang: args.lang });
    const nodes =
      args.query !== undefined
        ? searchTree(data, args.query, args.max_depth)
        : pruneTree(data, args.max_depth ?? ACTIVITIES_DEFAULT_DEPTH);
    const text =
      args.query === undefined
        ? `${renderTree(nodes, { codes: 'industry_codes' })}\n${TREE_HINT}`
        : nodes.length === 0
          ? 'No matching activity.'
          : renderTree(nodes, { codes: 'industry_codes' });
    return { structured: { nodes }, text };
  },
});

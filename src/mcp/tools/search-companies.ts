import { z } from 'zod';
import {
  CompanyRowSchema,
  CountJsonObject,
  ProjectedSearchDataSchema,
  SearchQueryObject,
  refineJsonFilters,
  scalarOrList,
  toSearchParams,
  type CompanyRow,
} from '../../contract/api-schemas.ts';
import { defineTool } from '../tool.ts';
import { inline } from '../render.ts';
import { MeteredOutput, meteredAnswer, priceList } from './common.ts';

/**
 * Agents read results in a small context window: a page of 10 full rows is about 3k tokens, the cap of
 * 50 about 15k, and `fields` cuts each row to the columns asked for.
 */
export const MCP_DEFAULT_PAGE_SIZE = 10;
export const MCP_MAX_PAGE_SIZE = 50;

type RowField = Exclude<keyof typeof CompanyRowSchema.shape, 'registrikood'>;
const ROW_FIELDS = Object.keys(CompanyRowSchema.shape).filter((k) => k !== 'registrikood') as [
  RowField,
  ...RowField[],
];

/** Columns of the text rendering when no `fields` were chosen. */
const TEXT_FIELDS: RowField[] = ['arinimi', 'oiguslik_vorm', 'staatus', 'esmaregistreerimise_kpv', 'asukoht'];

function pick(row: CompanyRow, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { registrikood: row.registrikood };
  for (const f of fields) out[f] = row[f] ?? null;
  return out;
}

export function searchCompaniesTool(prices: Readonly<Record<string, number>>) {
  return defineTool({
    name: 'search_companies',
    title: 'Search companies (metered)',
    description:
      'One page of the companies matching the filters. METERED: reserves page_size rows and charges ' +
      `each returned row at its country's price in credits (${priceList(prices)}). Count first with ` +
      `count_companies (free). page_size defaults to ${MCP_DEFAULT_PAGE_SIZE} here (max ` +
      `${MCP_MAX_PAGE_SIZE}); pass \`fields\` to get only the columns you need (registrikood always ` +
      'comes back; the price is per row, not per field). Active companies only unless `status` is sent. ' +
      "Filters differ per country (each filter's description names its countries; call list_filters). " +
      'Lists are JSON arrays, booleans JSON booleans, dates YYYY-MM-DD. Ties in the sort break on ' +
      'registrikood, so paging is stable. The result carries `meta` with credits charged and the balance.',
    input: CountJsonObject.extend({
      page: SearchQueryObject.shape.page,
      page_size: z
        .number()
        .int()
        .min(1)
        .max(MCP_MAX_PAGE_SIZE)
        .default(MCP_DEFAULT_PAGE_SIZE)
        .describe(`Rows per page, 1-${MCP_MAX_PAGE_SIZE}; each returned row is charged`),
      sort_by: SearchQueryObject.shape.sort_by,
      sort_dir: SearchQueryObject.shape.sort_dir,
      fields: scalarOrList(z.enum(ROW_FIELDS), ROW_FIELDS.length)
        .optional()
        .describe('Row fields to return besides registrikood; default all'),
    })
      .superRefine(refineJsonFilters)
      .transform((raw) => ({ params: toSearchParams(raw), fields: raw.fields })),
    output: MeteredOutput(ProjectedSearchDataSchema),
    metered: true,
    async run({ ops, caller }, { params, fields }) {
      const answer = await ops.search(caller, params);
      const data = fields
        ? { ...answer.data, items: answer.data.items.map((r) => pick(r, fields)) }
        : answer.data;
      const { page, page_size, total } = answer.data;
      const lines = [
        `${answer.data.items.length} of ${total} companies in ${params.country}, page ${page} of ` +
          `${Math.max(1, Math.ceil(total / page_size))}, sorted by ${answer.data.sort_by} ${answer.data.sort_dir}.`,
        ...data.items.map((r) => `- ${inline(fields ? r : pick(r as CompanyRow, TEXT_FIELDS))}`),
      ];
      return meteredAnswer({ ...answer, data }, lines.join('\n'));
    },
  });
}

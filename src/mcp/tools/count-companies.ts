import {
  CountJsonObject,
  CountResponseSchema,
  refineJsonFilters,
  toCountParams,
} from '../../contract/api-schemas.ts';
import { defineTool } from '../tool.ts';

export const countCompaniesTool = defineTool({
  name: 'count_companies',
  title: 'Count companies (free)',
  description:
    'Exact number of companies matching the filters. FREE: always count before search_companies, to ' +
    'check the filters and size the result, and then search only what you need. Active companies only ' +
    'unless `status` is sent (`["__all__"]` = every status). Takes the same filters as search_companies; ' +
    "each filter's description names the countries that have it, and list_filters gives option values. " +
    'Lists are JSON arrays, booleans JSON booleans, dates YYYY-MM-DD.',
  input: CountJsonObject.superRefine(refineJsonFilters).transform(toCountParams),
  output: CountResponseSchema,
  metered: false,
  async run({ ops, caller }, params) {
    const { data, fresh } = await ops.count(caller, params);
    const asOf = fresh ? `; data as of ${fresh.data_as_of}` : '';
    return {
      structured: data,
      text: `${data.count} companies match in ${data.country} (${data.count_mode}${asOf}).`,
    };
  },
});

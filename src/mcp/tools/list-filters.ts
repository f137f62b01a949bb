import { FiltersQuerySchema, FiltersResponseSchema } from '../../contract/api-schemas.ts';
import { defineTool } from '../tool.ts';
import { FREE } from './common.ts';

/** Options shown per filter in the text; the structured result lists them all. */
const TEXT_OPTIONS = 40;

export const listFiltersTool = defineTool({
  name: 'list_filters',
  title: 'List search filters of a country',
  description:
    'The search and count filters one country offers: parameter names, types, allowed option values ' +
    '(legal forms, statuses, size bands) and notes. Call this first for every country you search: ' +
    'filters differ per country, and a filter the country does not list is rejected (422). Tree filters ' +
    `take codes from list_activities (industry_codes) and list_locations (ehak_kood, lt_locations). ${FREE}`,
  input: FiltersQuerySchema,
  output: FiltersResponseSchema,
  metered: false,
  async run({ ops, caller }, args) {
    const { data } = await ops.filters(caller, args.country);
    const lines = [`${data.country}: industry codes are ${data.industry_system}.`];
    for (const f of data.filters) {
      const params = [f.param, f.param_min, f.param_max, f.param_from, f.param_to].filter(Boolean).join(', ');
      lines.push(
        `- ${params} (${f.type}${f.multi ? ', list' : ''}): ${f.label}${f.note ? `. ${f.note}` : ''}`,
      );
      if (f.options?.length) {
        const shown = f.options.slice(0, TEXT_OPTIONS).map((o) => `${o.value}=${o.label}`);
        const more = f.options.length > TEXT_OPTIONS ? `; ... ${f.options.length - TEXT_OPTIONS} more` : '';
        lines.push(`  options: ${shown.join('; ')}${more}`);
      }
      if (f.options_url) lines.push(`  options from: ${f.options_url}`);
    }
    return { structured: data, text: lines.join('\n') };
  },
});

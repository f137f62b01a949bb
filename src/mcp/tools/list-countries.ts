import { z } from 'zod';
import { CountriesResponseSchema } from '../../contract/api-schemas.ts';
import { defineTool } from '../tool.ts';
import { FREE } from './common.ts';

export const listCountriesTool = defineTool({
  name: 'list_countries',
  title: 'List countries',
  description: `The seven countries whose company registers are served, with their ISO codes. ${FREE}`,
  input: z.strictObject({}),
  output: CountriesResponseSchema,
  metered: false,
  async run({ ops, caller }) {
    const { data } = await ops.countries(caller);
    return { structured: data, text: data.countries.map((c) => `${c.code} ${c.name}`).join('\n') };
  },
});

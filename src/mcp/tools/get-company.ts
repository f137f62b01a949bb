import { z } from 'zod';
import { CompanyDetailSchema, CountrySchema } from '../../contract/api-schemas.ts';
import { defineTool } from '../tool.ts';
import { renderRecord } from '../render.ts';
import { MeteredOutput, meteredAnswer, priceList, registrationCode } from './common.ts';

export function getCompanyTool(prices: Readonly<Record<string, number>>) {
  return defineTool({
    name: 'get_company',
    title: 'Company details (metered)',
    description:
      'The full record of one company by its registration code: names, status, address, contacts, ' +
      'people, activities, financial figures. METERED: one row at the country price in credits ' +
      `(${priceList(prices)}). No company with that code (404) costs nothing; a code not in the ` +
      "country's format is a 400, also free.",
    input: z.strictObject({ country: CountrySchema, registration_code: registrationCode }),
    output: MeteredOutput(CompanyDetailSchema),
    metered: true,
    async run({ ops, caller }, args) {
      const answer = await ops.detail(caller, {
        country: args.country,
        registrikood: args.registration_code,
      });
      return meteredAnswer(answer, renderRecord(answer.data));
    },
  });
}

import { z } from 'zod';
import { CountrySchema, HistoryDataSchema } from '../../contract/api-schemas.ts';
import { defineTool } from '../tool.ts';
import { renderRecord } from '../render.ts';
import { MeteredOutput, meteredAnswer, priceList, registrationCode } from './common.ts';

export function getCompanyHistoryTool(prices: Readonly<Record<string, number>>) {
  return defineTool({
    name: 'get_company_history',
    title: 'Company history (metered)',
    description:
      "Time series of one company's figures (turnover, employees, annual reports) in chronological " +
      'order. METERED: one row at the country price in credits ' +
      `(${priceList(prices)}); free when the company has no history (always so for FI, PL and SE) ` +
      'and when there is no such company (404).',
    input: z.strictObject({ country: CountrySchema, registration_code: registrationCode }),
    output: MeteredOutput(HistoryDataSchema),
    metered: true,
    async run({ ops, caller }, args) {
      const answer = await ops.history(caller, {
        country: args.country,
        registrikood: args.registration_code,
      });
      return meteredAnswer(answer, renderRecord(answer.data));
    },
  });
}

import { WorkplacesDataSchema, WorkplacesQuerySchema } from '../../contract/api-schemas.ts';
import { defineTool } from '../tool.ts';
import { renderRecord } from '../render.ts';
import { MeteredOutput, meteredAnswer, registrationCode } from './common.ts';

export function getCompanyWorkplacesTool(prices: Readonly<Record<string, number>>) {
  return defineTool({
    name: 'get_company_workplaces',
    title: 'Workplaces of a Swedish company (metered)',
    description:
      'Every active workplace (arbetsställe) of a Swedish company, main one first, with address, ' +
      `municipality, activity and size band. Sweden only (country "SE"). METERED: one row at the SE ` +
      `price (${prices['SE']} credits); free when the company has no workplace on file and when there is ` +
      'no such company (404).',
    input: WorkplacesQuerySchema.extend({ registration_code: registrationCode }),
    output: MeteredOutput(WorkplacesDataSchema),
    metered: true,
    async run({ ops, caller }, args) {
      const answer = await ops.workplaces(caller, {
        country: args.country,
        registrikood: args.registration_code,
      });
      return meteredAnswer(answer, renderRecord(answer.data));
    },
  });
}

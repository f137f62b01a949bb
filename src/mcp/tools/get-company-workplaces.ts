import { WorkplacesDataSchema, WorkplacesQuerySchema } from '../../contract/api-schemas.ts';
import { companyTool, registrationCode } from './common.ts';

export function getCompanyWorkplacesTool(prices: Readonly<Record<string, number>>) {
  return companyTool({
    name: 'get_company_workplaces',
    title: 'Workplaces of a Swedish company (metered)',
    description:
      'Every active workplace (arbetsställe) of a Swedish company, main one first, with address, ' +
      `municipality, activity and size band. Sweden only (country "SE"). METERED: one row at the SE ` +
      `price (${prices['SE']} credits); free when the company has no workplace on file and when there is ` +
      'no such company (404).',
    input: WorkplacesQuerySchema.extend({ registration_code: registrationCode }),
    data: WorkplacesDataSchema,
    call: (ops, caller, ref) => ops.workplaces(caller, ref),
  });
}

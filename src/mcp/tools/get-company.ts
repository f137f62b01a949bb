import { CompanyDetailSchema } from '../../contract/api-schemas.ts';
import { companyTool, priceList } from './common.ts';

export function getCompanyTool(prices: Readonly<Record<string, number>>) {
  return companyTool({
    name: 'get_company',
    title: 'Company details (metered)',
    description:
      'The full record of one company by its registration code: names, status, address, contacts, ' +
      'people, activities, financial figures. METERED: one row at the country price in credits ' +
      `(${priceList(prices)}). No company with that code (404) costs nothing; a code not in the ` +
      "country's format is a 400, also free.",
    data: CompanyDetailSchema,
    call: (ops, caller, ref) => ops.detail(caller, ref),
  });
}

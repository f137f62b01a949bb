import { HistoryDataSchema } from '../../contract/api-schemas.ts';
import { companyTool, priceList } from './common.ts';

export function getCompanyHistoryTool(prices: Readonly<Record<string, number>>) {
  return companyTool({
    name: 'get_company_history',
    title: 'Company history (metered)',
    description:
      "Time series of one company's figures (turnover, employees, annual reports) in chronological " +
      'order. METERED: one row at the country price in credits ' +
      `(${priceList(prices)}); free when the company has no history (always so for FI, PL and SE) ` +
      'and when there is no such company (404).',
    data: HistoryDataSchema,
    call: (ops, caller, ref) => ops.history(caller, ref),
  });
}

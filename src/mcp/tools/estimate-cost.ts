import { z } from 'zod';
import { CountrySchema } from '../../contract/api-schemas.ts';
import {
  ESTIMATE_OPERATIONS,
  EstimateDataSchema,
  type EstimateRequest,
} from '../../contract/export-schemas.ts';
import { defineTool } from '../tool.ts';
import { FREE } from './common.ts';

/**
 * The arguments are the REST call's query parameters as JSON; the service parses them with that operation's
 * own query schema, which reads query-string text, so typed JSON values are written back as that text
 * (`true`, `20`) first. The parameter names are REST's: `registrikood`, `page_size`, `max_rows`, the filters.
 */
const QueryScalar = z.union([z.string(), z.number(), z.boolean()]);

function asQueryText(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(asQueryText);
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
}

export const estimateCostTool = defineTool({
  name: 'estimate_cost',
  title: 'Estimate the cost of a call (free)',
  description:
    'What a metered call would reserve now, before you make it: `operation` (search, export, changes, ' +
    'detail, history, workplaces), `country` and that operation’s own parameters under their REST names ' +
    '(the filters, page_size, max_rows and format for export, since for changes, registrikood for ' +
    'detail/history/workplaces). Returns rows, unit_price, credits_needed, credit_balance, whether a waiver ' +
    `(admin, unlimited, subscription, trial) makes it free, and would_succeed. ${FREE}`,
  input: z
    .object({
      operation: z.enum(ESTIMATE_OPERATIONS).describe('The operation to price'),
      country: CountrySchema,
    })
    // The operation's own parameters: what a query string can carry, as JSON scalars or lists of them.
    .catchall(z.union([QueryScalar, z.array(QueryScalar)]))
    .transform(({ operation, ...rest }): EstimateRequest => ({
      operation,
      country: rest.country,
      rest: Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, asQueryText(v)])),
    })),
  output: EstimateDataSchema,
  metered: false,
  async run({ ops, caller }, req) {
    const { data, fresh } = await ops.estimate(caller, req);
    const asOf = fresh ? ` Data as of ${fresh.data_as_of}.` : '';
    const cost = data.waived
      ? `free (${data.waiver})`
      : `${data.credits_needed} credits (${data.rows} rows x ${data.unit_price})`;
    return {
      structured: data,
      text:
        `${data.operation} in ${data.country} would reserve ${cost}; balance ${data.credit_balance}; ` +
        `${data.would_succeed ? 'it would succeed' : 'the balance is short: it would answer 402'}.${asOf}`,
    };
  },
});

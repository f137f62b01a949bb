import { z } from 'zod';
import { CompanyPathSchema, CountrySchema, UsageMetaSchema } from '../../contract/api-schemas.ts';
import { COUNTRY_CODES, type CountryCode } from '../../contract/countries.ts';
import type { Caller, Metered, Operations } from '../../services/operations.ts';
import type { CompanyRef } from '../../services/companies.ts';
import { renderMeta, renderRecord } from '../render.ts';
import { defineTool, type ToolAnswer, type ToolDef } from '../tool.ts';

/** `EE 0.04, LV 0.08, ...`: the row prices in effect, written into the descriptions of metered tools. */
export function priceList(prices: Readonly<Record<string, number>>): string {
  return COUNTRY_CODES.map((c) => `${c} ${prices[c]}`).join(', ');
}

/** The REST path parameter under the name an agent expects. */
export const registrationCode = CompanyPathSchema.shape.registrikood;

/** `{data, meta}` as REST sends it, with the text followed by what the call cost. */
export function meteredAnswer<T extends object>(answer: Metered<T>, text: string): ToolAnswer {
  return {
    structured: { data: answer.data, meta: answer.meta },
    text: `${text}\n${renderMeta(answer.meta)}`,
  };
}

export const MeteredOutput = <T extends z.ZodType>(data: T) => z.object({ data, meta: UsageMetaSchema });

export const FREE = 'Free (no credits; rate-limited like every call).';

/** The arguments of the one-company tools: the REST path parameter and `country` query, as one object. */
export const CompanyArgs = z.strictObject({ country: CountrySchema, registration_code: registrationCode });

/**
 * get_company, get_company_history and get_company_workplaces differ only in the operation they call and
 * what they say about it: one row at the country price, the record as REST's `{data, meta}`.
 */
export function companyTool<D extends Record<string, unknown>>(spec: {
  name: string;
  title: string;
  description: string;
  input?: z.ZodType<{ country: CountryCode; registration_code: string }>;
  data: z.ZodType;
  call: (ops: Operations, caller: Caller, ref: CompanyRef) => Promise<Metered<D>>;
}): ToolDef {
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: spec.input ?? CompanyArgs,
    output: MeteredOutput(spec.data),
    metered: true,
    async run({ ops, caller }, args) {
      const ref = { country: args.country, registrikood: args.registration_code };
      const answer = await spec.call(ops, caller, ref);
      return meteredAnswer(answer, renderRecord(answer.data));
    },
  });
}

import { z } from 'zod';
import { CompanyPathSchema, UsageMetaSchema } from '../../contract/api-schemas.ts';
import { COUNTRY_CODES } from '../../contract/countries.ts';
import type { Metered } from '../../services/operations.ts';
import { renderMeta } from '../render.ts';
import type { ToolAnswer } from '../tool.ts';

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

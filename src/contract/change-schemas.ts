import { z } from 'zod';
import { CountrySchema, SearchQueryObject, UsageMetaSchema } from './api-schemas.ts';
import type { CountryCode } from './countries.ts';
import { SNAPSHOT_ID } from './snapshot-store.ts';

/**
 * The change feed's request and response (issue 19, docs/api-decisions.md): one schema each, feeding the
 * REST validation, the OpenAPI document and the MCP tool. Kept beside api-schemas.ts so the feed is one
 * file to read.
 */

const CHANGE_KINDS = ['added', 'removed', 'changed'] as const;

/** Where the feed starts: a day (changes recorded on or after it) or a snapshot (changes after it). */
export type ChangesFrom = { since: string } | { since_snapshot: string };

export type ChangesParams = ChangesFrom & {
  country: CountryCode;
  page: number;
  page_size: number;
};

const FROM_SHAPE = {
  since: z.iso
    .date()
    .optional()
    .describe('First day (YYYY-MM-DD) of the changes wanted: changes recorded on or after it'),
  since_snapshot: z
    .string()
    .regex(SNAPSHOT_ID, 'must be a snapshot id, e.g. 20261121T195600Z')
    .optional()
    .describe('A snapshot id (`snapshot_id` of an earlier item): the changes recorded by later snapshots'),
};

export const ChangesQueryObject = z.strictObject({
  country: CountrySchema,
  ...FROM_SHAPE,
  page: SearchQueryObject.shape.page,
  page_size: SearchQueryObject.shape.page_size,
});

type RawChanges = { since?: string | undefined; since_snapshot?: string | undefined };

/** Exactly one starting point: the feed has no default (a whole year of history is rarely what is meant). */
export function refineChangesFrom(raw: RawChanges, ctx: z.RefinementCtx): void {
  if (raw.since !== undefined && raw.since_snapshot !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: 'send either `since` or `since_snapshot`, not both',
      path: ['since_snapshot'],
      params: { type: 'conflicting_parameters' },
    });
  } else if (raw.since === undefined && raw.since_snapshot === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: 'send `since` (YYYY-MM-DD) or `since_snapshot` (a snapshot id)',
      path: ['since'],
      params: { type: 'missing' },
    });
  }
}

export const toChangesParams = (
  raw: RawChanges & { country: CountryCode; page: number; page_size: number },
): ChangesParams => ({
  country: raw.country,
  page: raw.page,
  page_size: raw.page_size,
  ...(raw.since !== undefined ? { since: raw.since } : { since_snapshot: raw.since_snapshot as string }),
});

export const ChangesQuerySchema =
  ChangesQueryObject.superRefine(refineChangesFrom).transform(toChangesParams);

export const FieldChangeSchema = z
  .object({
    field: z
      .string()
      .describe('An API field of the company')
      .meta({ examples: ['arinimi'] }),
    before: z.unknown().describe('Its value before, as the API writes it (null when it had none)'),
    after: z.unknown().describe('Its value after, as the API writes it (null when it has none)'),
  })
  .meta({ id: 'FieldChange' });
export type FieldChange = z.output<typeof FieldChangeSchema>;

export const ChangeItemSchema = z
  .object({
    registrikood: z.string(),
    change: z.enum(CHANGE_KINDS),
    fields: z
      .array(z.string())
      .describe('For `changed`: the API fields whose value changed; empty for `added` and `removed`'),
    snapshot_id: z.string().describe('The snapshot whose publish recorded the change'),
    as_of: z.iso.date().describe('The day that snapshot was published'),
    diff: z
      .array(FieldChangeSchema)
      .nullable()
      .describe(
        'For `changed`: each changed field with its value before and after; empty for `added` and ' +
          '`removed`; null for changes recorded before the snapshot contract 1.4.0 kept values',
      ),
  })
  .meta({ id: 'ChangeItem' });
export type ChangeItem = z.output<typeof ChangeItemSchema>;

export const ChangesDataSchema = z.object({
  items: z.array(ChangeItemSchema),
  page: z.number().int(),
  page_size: z.number().int(),
  total: z.number().int().describe('All changes from the starting point on'),
});
export type ChangesData = z.output<typeof ChangesDataSchema>;
export const ChangesResponseSchema = z.object({ data: ChangesDataSchema, meta: UsageMetaSchema });

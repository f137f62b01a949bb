import { z } from 'zod';
import { CountJsonObject, CountrySchema, SearchQueryObject, UsageMetaSchema } from './api-schemas.ts';
import { FieldChangeSchema } from './change-schemas.ts';

/**
 * Watchlists and their events (issue 31, docs/api-decisions.md "Watchlists and events"): one schema per
 * request and response, feeding REST validation, the OpenAPI document and the MCP tool.
 */

/** Registration codes per request: a list is filled in pages of this many. */
export const MAX_CODES_PER_REQUEST = 10_000;

const Codes = z
  .array(z.string().min(1).max(32))
  .min(1)
  .max(MAX_CODES_PER_REQUEST)
  .describe('Registration codes of the country (`registrikood` as the API writes it)');

/** The saved search: every filter /count takes, as JSON, without `country` (the watchlist's). */
export const SavedSearchObject = CountJsonObject.omit({ country: true }).describe(
  'A saved search: the filters of /count as JSON (the names of `list_filters`), without `country`',
);

export const WatchlistCreateBodySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).describe('A name for the dashboard and the events'),
    country: CountrySchema,
    companies: Codes.optional(),
    search: SavedSearchObject.optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.companies === undefined) === (body.search === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'send either `companies` (a list) or `search` (a saved search), not both or neither',
        path: [body.companies === undefined ? 'companies' : 'search'],
        params: { type: body.companies === undefined ? 'missing' : 'conflicting_parameters' },
      });
    }
  });
export type WatchlistCreateBody = z.output<typeof WatchlistCreateBodySchema>;

export const WatchlistCompaniesBodySchema = z.strictObject({ companies: Codes });

export const WatchlistPathSchema = z.strictObject({
  id: z
    .string()
    .regex(/^wl_[A-Za-z0-9_-]{16}$/, 'must be a watchlist id, e.g. wl_3q2PZ1x0aB9cD8eF')
    .describe('The watchlist (`id` of a watchlist of this account)')
    .meta({ examples: ['wl_3q2PZ1x0aB9cD8eF'] }),
});

export const WatchlistSchema = z
  .object({
    id: z.string().meta({ examples: ['wl_3q2PZ1x0aB9cD8eF'] }),
    name: z.string().meta({ examples: ['Suppliers'] }),
    country: CountrySchema,
    kind: z.enum(['companies', 'search']).describe('`companies`: a list; `search`: a saved search'),
    search: z.record(z.string(), z.unknown()).nullable().describe('The saved search; null for a list'),
    companies: z.number().int().describe('Companies on the list; 0 for a saved search'),
    created_at: z.string().meta({ examples: ['2026-11-27T10:15:00.000Z'] }),
  })
  .meta({ id: 'Watchlist' });

export const WatchlistListResponseSchema = z.object({ data: z.object({ items: z.array(WatchlistSchema) }) });
export const WatchlistResponseSchema = z.object({
  data: WatchlistSchema.extend({
    registrikoodid: z
      .array(z.string())
      .describe('The companies of a list, in code order; empty for a search'),
  }),
});
export const WatchlistRemovedResponseSchema = z.object({
  data: z.object({
    removed: z
      .number()
      .int()
      .describe('How many of the codes were on the list')
      .meta({ examples: [1] }),
  }),
});

// ---------------------------------------------------------------------------------------------------------
// Events

export const EVENT_ID = /^\d{8}T\d{6}Z(-[a-z0-9-]{1,32})?\.[A-Z]{2}\.[0-9a-f]{16}$/;

export const EventsQuerySchema = z.strictObject({
  country: CountrySchema,
  after: z
    .string()
    .meta({ examples: ['20261127T030000Z.EE.3f9a0c1d2b4e5f60'] })
    .regex(EVENT_ID, 'must be an event id (the `id` of an earlier event)')
    .optional()
    .describe('The `id` of the last event you have: the events after it. Absent: from the oldest kept'),
  page_size: SearchQueryObject.shape.page_size,
});
export type EventsParams = z.output<typeof EventsQuerySchema>;

export const EventWatchlistSchema = z.object({
  id: z.string().meta({ examples: ['wl_3q2PZ1x0aB9cD8eF'] }),
  membership: z
    .enum(['member', 'entered', 'left'])
    .describe('`member`: on the list or in the search before and after; `entered`/`left`: a saved search'),
});

export const EventSchema = z
  .object({
    id: z
      .string()
      .describe('Stable: the same event always has this id (use it to drop repeats)')
      .meta({ examples: ['20261127T030000Z.EE.3f9a0c1d2b4e5f60'] }),
    country: CountrySchema,
    registrikood: z.string(),
    change: z
      .enum(['added', 'removed', 'changed'])
      .nullable()
      .describe('What the publish did to the company; null when only a saved search it is in changed'),
    fields: z.array(z.string()),
    diff: z.array(FieldChangeSchema).describe('For `changed`: each field before and after, as in /changes'),
    watchlists: z.array(EventWatchlistSchema).describe('Every watchlist of the account the company is in'),
    snapshot_id: z.string(),
    as_of: z.iso.date(),
  })
  .meta({ id: 'WatchlistEvent' });
export type WatchlistEvent = z.output<typeof EventSchema>;

export const EventsDataSchema = z.object({
  items: z.array(EventSchema),
  next_after: z
    .string()
    .nullable()
    .meta({ examples: ['20261127T030000Z.EE.3f9a0c1d2b4e5f60'] })
    .describe('Send as `after` for the next page; null when this page is empty (keep your cursor)'),
  oldest: z
    .string()
    .nullable()
    .describe('The oldest event kept for this account, or null')
    .meta({ examples: ['20261101T030000Z.EE.0b1c2d3e4f5a6b7c'] }),
});
export type EventsData = z.output<typeof EventsDataSchema>;
export const EventsResponseSchema = z.object({ data: EventsDataSchema, meta: UsageMetaSchema });

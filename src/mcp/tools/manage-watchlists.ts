import { z } from 'zod';
import { CountrySchema } from '../../contract/api-schemas.ts';
import {
  MAX_CODES_PER_REQUEST,
  WatchlistCreateBodySchema,
  WatchlistPathSchema,
} from '../../contract/watchlist-schemas.ts';
import { validationError } from '../../errors/app-error.ts';
import { addToWatchlist, createWatchlist, searchText } from '../../services/watchlists.ts';
import { MAX_WATCHLISTS, SMALL_LIST, type Watchlist, type Watchlists } from '../../watchlists/watchlists.ts';
import { argumentIssues, defineTool, type ToolAnswer } from '../tool.ts';
import { FREE } from './common.ts';

/**
 * Issue 31's account management as ONE tool with an `action`, not six: every tool's schema is sent to the
 * model on every turn (the listing budget of test/mcp), and the six REST routes share one small argument
 * set. Each action is the REST route's: the same services, the same checks, `data` as REST answers it,
 * free through Operations.manageWatchlists.
 */

const ACTIONS = ['list', 'show', 'create', 'add_companies', 'remove_companies', 'delete'] as const;
type Action = (typeof ACTIONS)[number];

/** Which arguments each action takes (besides `action`); the rest are refused, as REST refuses them. */
const TAKES: Record<Action, readonly string[]> = {
  list: [],
  show: ['id'],
  create: ['name', 'country', 'companies', 'search'],
  add_companies: ['id', 'companies'],
  remove_companies: ['id', 'companies'],
  delete: ['id'],
};
const NEEDS: Record<Action, readonly string[]> = {
  list: [],
  show: ['id'],
  create: ['name', 'country'],
  add_companies: ['id', 'companies'],
  remove_companies: ['id', 'companies'],
  delete: ['id'],
};

const create = WatchlistCreateBodySchema.shape;

const Args = z
  .strictObject({
    action: z
      .enum(ACTIONS)
      .describe(
        'list: every watchlist; show: one with its codes; create: a list (companies) or a saved search ' +
          '(search); add_companies / remove_companies: change a list; delete: stop watching',
      ),
    id: WatchlistPathSchema.shape.id.optional().describe('show, add_companies, remove_companies, delete'),
    name: create.name.optional().describe('create: a name for the dashboard and the events'),
    country: CountrySchema.optional().describe('create: the country of the watchlist'),
    companies: z
      .array(z.string().min(1).max(32))
      .min(1)
      .max(MAX_CODES_PER_REQUEST)
      .optional()
      .describe('create, add_companies, remove_companies: registration codes of the country, as strings'),
    // Open here (the whole filter schema is count_companies'; repeating it would double the listing), and
    // checked on create by the same schema and services as REST's body.
    search: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('create: a saved search, the arguments of count_companies as JSON without country'),
  })
  .superRefine((args, ctx) => {
    for (const key of Object.keys(args)) {
      if (key !== 'action' && !TAKES[args.action].includes(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `not an argument of action ${args.action}`,
          params: { type: 'unknown_parameter' },
        });
      }
    }
    for (const key of NEEDS[args.action]) {
      if ((args as Record<string, unknown>)[key] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `required by action ${args.action}`,
          params: { type: 'missing' },
        });
      }
    }
  });
type ArgsOut = z.output<typeof Args>;

/** `wl_… "Suppliers" EE: list of 3 companies` / `…: saved search legal_form: OÜ`, one line. */
function line(w: Watchlist): string {
  const what =
    w.kind === 'companies'
      ? `list of ${w.companies} ${w.companies === 1 ? 'company' : 'companies'}`
      : `saved search ${searchText(w.search)}`;
  return `${w.id} ${JSON.stringify(w.name)} ${w.country}: ${what}`;
}

/** The codes of a list, cut for the text (the structured result has them all). */
function codesLine(codes: readonly string[], max = 50): string[] {
  if (codes.length === 0) return [];
  const more = codes.length > max ? ` ... ${codes.length - max} more` : '';
  return [`Companies: ${codes.slice(0, max).join(', ')}${more}`];
}

async function act(lists: Watchlists, accountId: string, a: ArgsOut): Promise<ToolAnswer> {
  const id = a.id as string;
  const companies = a.companies as string[];
  switch (a.action) {
    case 'list': {
      const items = await lists.list(accountId);
      const text = items.length
        ? [`${items.length} watchlists:`, ...items.map((w) => `- ${line(w)}`)].join('\n')
        : 'No watchlists yet: create one with action create (companies or a saved search).';
      return { structured: { data: { items } }, text };
    }
    case 'show': {
      const data = await lists.get(accountId, id);
      return { structured: { data }, text: [line(data), ...codesLine(data.registrikoodid)].join('\n') };
    }
    case 'create': {
      const { action: _, ...body } = a;
      const parsed = WatchlistCreateBodySchema.safeParse(body);
      if (!parsed.success) throw validationError(argumentIssues(parsed.error));
      const data = await lists.get(accountId, (await createWatchlist(lists, accountId, parsed.data)).id);
      const next = `Events come after the next publish: list_events with country ${data.country}.`;
      return {
        structured: { data },
        text: [`Created ${line(data)}.`, ...codesLine(data.registrikoodid), next].join('\n'),
      };
    }
    case 'add_companies': {
      await addToWatchlist(lists, accountId, id, companies);
      const data = await lists.get(accountId, id);
      return { structured: { data }, text: `Added; now ${line(data)}.` };
    }
    case 'remove_companies': {
      const removed = await lists.removeCompanies(accountId, id, companies);
      return {
        structured: { data: { removed } },
        text: `Removed ${removed} of the ${companies.length} codes from ${id} (the others were not on it).`,
      };
    }
    case 'delete':
      await lists.remove(accountId, id);
      return { structured: { data: { deleted: id } }, text: `Deleted watchlist ${id}.` };
  }
}

export function manageWatchlistsTool(watchlists: Watchlists) {
  return defineTool({
    name: 'manage_watchlists',
    title: 'Manage your watchlists (free)',
    description:
      'Watch companies or a saved search of one country, to be told when they change: create with ' +
      '`companies` (registration codes) or `search` (the filters of count_companies, see list_filters), ' +
      'then read the events of each publish with list_events (metered). `action` list, show, create, ' +
      `add_companies, remove_companies, delete. At most ${MAX_WATCHLISTS} watchlists per account and ` +
      `${SMALL_LIST} companies per list on pay-as-you-go. ${FREE}`,
    input: Args,
    output: z.object({
      data: z.looseObject({}).describe('What REST answers for the same action (delete: the id deleted)'),
    }),
    metered: false,
    effect: 'destructive',
    idempotent: false,
    async run({ ops, caller }, args) {
      const { data } = await ops.manageWatchlists(caller, () =>
        act(watchlists, caller.principal.accountId, args),
      );
      return data;
    },
  });
}

import { z } from 'zod';
import {
  ChangesDataSchema,
  ChangesQueryObject,
  refineChangesFrom,
  toChangesParams,
} from '../../contract/change-schemas.ts';
import { isAppError, validationError } from '../../errors/app-error.ts';
import type { Caller, Operations } from '../../services/operations.ts';
import type { ChangeItem, ChangesParams } from '../../contract/change-schemas.ts';
import { defineTool } from '../tool.ts';
import { MeteredOutput, meteredAnswer, priceList } from './common.ts';

/** A change item is one short line, so an agent can take more of them per call than search rows. */
export const MCP_DEFAULT_PAGE_SIZE = 50;
export const MCP_MAX_PAGE_SIZE = 200;

/** page_size of the feeds (list_changes, list_events): MCP's page sizes, as a JSON integer. */
export const feedPageSize = (what: string, charge: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(MCP_MAX_PAGE_SIZE)
    .default(MCP_DEFAULT_PAGE_SIZE)
    .describe(`${what} per page, 1-${MCP_MAX_PAGE_SIZE}; ${charge}`);

/** The service's 422s locate the parameter in a query string; an agent sent it as an argument. */
async function changes(ops: Operations, caller: Caller, params: ChangesParams) {
  try {
    return await ops.changes(caller, params);
  } catch (err) {
    if (!isAppError(err) || err.code !== 'validation_failed') throw err;
    throw validationError(
      err.issues.map((i) => (i.loc[0] === 'query' ? { ...i, loc: ['arguments', ...i.loc.slice(1)] } : i)),
    );
  }
}

/** `: arinimi "Old" -> "New"`; only the names when the history predates kept values. */
export function fieldText(c: Pick<ChangeItem, 'fields' | 'diff'>): string {
  if (c.fields.length === 0) return '';
  if (!c.diff) return `: ${c.fields.join(', ')}`;
  const short = (v: unknown) => {
    const text = JSON.stringify(v) ?? 'null';
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  };
  return `: ${c.diff.map((d) => `${d.field} ${short(d.before)} -> ${short(d.after)}`).join('; ')}`;
}

export function listChangesTool(prices: Readonly<Record<string, number>>) {
  return defineTool({
    name: 'list_changes',
    title: 'List changed companies (metered)',
    description:
      'The companies added, removed or changed in one country since a day (`since`, YYYY-MM-DD) or since ' +
      'a snapshot (`since_snapshot`, the snapshot_id of an item you already have), oldest first, with the ' +
      'names of the fields that changed. Use it to keep a list in sync instead of searching again. ' +
      'METERED: reserves page_size items and charges each returned item at its country row price in ' +
      `credits (${priceList(prices)}); an empty page is free. page_size defaults to ` +
      `${MCP_DEFAULT_PAGE_SIZE} here (max ${MCP_MAX_PAGE_SIZE}). A since before the kept history is an ` +
      'error naming the oldest date available. Get the companies themselves with get_company.',
    input: ChangesQueryObject.extend({ page_size: feedPageSize('Items', 'each returned item is charged') })
      .superRefine(refineChangesFrom)
      .transform(toChangesParams),
    output: MeteredOutput(ChangesDataSchema),
    metered: true,
    async run({ ops, caller }, params) {
      const answer = await changes(ops, caller, params);
      const { items, page, page_size, total } = answer.data;
      const from =
        'since' in params ? `on or after ${params.since}` : `after snapshot ${params.since_snapshot}`;
      const span = items.length ? ` This page covers ${items[0]!.as_of} to ${items.at(-1)!.as_of}.` : '';
      const lines = [
        `${items.length} of ${total} changes in ${params.country} recorded ${from}, page ${page} of ` +
          `${Math.max(1, Math.ceil(total / page_size))}.${span}`,
        ...items.map((c) => `- ${c.as_of} ${c.registrikood} ${c.change}${fieldText(c)}`),
      ];
      return meteredAnswer(answer, lines.join('\n'));
    },
  });
}

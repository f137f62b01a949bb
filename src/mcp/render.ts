import type { TreeNode } from '../contract/api-schemas.ts';
import type { UsageMeta } from '../wallet/types.ts';

/**
 * Compact texts next to each tool's `structuredContent`: what a model reads when its client shows only
 * `content`. They summarise; the structured result holds every field.
 */

type Value = unknown;

function scalar(v: Value): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function isScalar(v: Value): boolean {
  return v === null || typeof v !== 'object';
}

/** `k=v, k=v` of the non-null scalar fields of one object. */
export function inline(obj: Record<string, Value>): string {
  return Object.entries(obj)
    .filter(([, v]) => v !== null && v !== undefined && isScalar(v))
    .map(([k, v]) => `${k}=${scalar(v)}`)
    .join(', ');
}

/** One object as `key: value` lines; nested lists as counted blocks of inline items. */
export function renderRecord(obj: Record<string, Value>): string {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v)) {
      if (v.length === 0) continue;
      lines.push(`${k} (${v.length}):`);
      for (const item of v) {
        lines.push(
          `  - ${item && typeof item === 'object' ? inline(item as Record<string, Value>) : scalar(item)}`,
        );
      }
    } else if (typeof v === 'object') {
      const text = inline(v as Record<string, Value>);
      if (text) lines.push(`${k}: ${text}`);
    } else {
      lines.push(`${k}: ${scalar(v)}`);
    }
  }
  return lines.join('\n');
}

export function renderMeta(meta: UsageMeta & { data_as_of: string }): string {
  const rows = meta.rows_returned === null ? '' : ` for ${meta.rows_returned} row(s)`;
  return `Charged ${meta.credits_charged} credits${rows}; balance ${meta.credit_balance} credits. Data as of ${meta.data_as_of}.`;
}

/** Characters of codes one tree answer prints; past it, a node says how to get its codes on their own. */
export const TREE_TEXT_CODES_BUDGET = 12_000;

/** Which filter argument takes a node's `codes` and which its `locations` (LT). */
export interface SendAs {
  codes: string;
  locations?: string;
}

/**
 * Tree lines `kood label`, indented by depth, each followed by the values to send for it, so an agent whose
 * client shows only the text can filter with them: a node's `codes` (its whole branch) or LT's `locations`.
 * The values are printed in full until the budget is spent; a node past it says how to get them alone.
 */
export function renderTree(nodes: readonly TreeNode[], sendAs: SendAs, limit = 400): string {
  const lines: string[] = [];
  let total = 0;
  // A node asked for on its own is printed whatever its size: there is no narrower question to send.
  let budget = nodes.length === 1 ? Infinity : TREE_TEXT_CODES_BUDGET;
  const values = (n: TreeNode): string => {
    const [arg, list] = n.codes
      ? [sendAs.codes, n.codes]
      : n.locations && sendAs.locations
        ? [sendAs.locations, n.locations]
        : [null, null];
    if (!arg || !list) return '';
    const text = JSON.stringify(list);
    if (text.length <= budget) {
      budget -= text.length;
      return ` -> ${arg}: ${text}`;
    }
    return ` -> ${arg}: ${list.length} values, too many to print here; call again with query "${n.label}" for this node alone`;
  };
  const walk = (list: readonly TreeNode[], depth: number) => {
    for (const n of list) {
      total++;
      if (lines.length < limit) lines.push(`${'  '.repeat(depth)}${n.kood} ${n.label}${values(n)}`);
      walk(n.children, depth + 1);
    }
  };
  walk(nodes, 0);
  if (total > lines.length) lines.push(`... ${total - lines.length} more node(s) in structuredContent`);
  return lines.join('\n');
}

import type { TreeNode } from '../contract/api-schemas.ts';
import { foldText } from '../engine/loaded-snapshot.ts';

/**
 * Activity trees are 90-155 KB whole: more than an agent can afford in one answer. The MCP tool cuts them
 * by depth or answers a name search; both are views of the same tree the REST route returns.
 */

export const TREE_QUERY_LIMIT = 100;

export function pruneTree(nodes: readonly TreeNode[], depth: number): TreeNode[] {
  return nodes.map((n) => ({ ...n, children: depth > 1 ? pruneTree(n.children, depth - 1) : [] }));
}

/** The leaf codes at and below a node: what `industry_codes` must carry to match the whole branch. */
export function leafCodes(node: TreeNode): string[] {
  if (node.children.length === 0) return [node.kood];
  return node.children.flatMap(leafCodes);
}

/** Nodes whose label or code contains the query (case- and accent-insensitive), flat, tree order. */
export function searchTree(nodes: readonly TreeNode[], query: string, maxDepth = Infinity): TreeNode[] {
  const key = foldText(query);
  const out: TreeNode[] = [];
  const walk = (list: readonly TreeNode[], depth: number): void => {
    for (const n of list) {
      if (out.length === TREE_QUERY_LIMIT || depth > maxDepth) return;
      if (foldText(n.label).includes(key) || foldText(n.kood).includes(key)) {
        out.push({ ...n, children: [], codes: leafCodes(n) });
      }
      walk(n.children, depth + 1);
    }
  };
  walk(nodes, 1);
  return out;
}

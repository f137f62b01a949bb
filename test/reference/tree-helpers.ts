import type { TreeNode } from '../../ingest/reference/types.ts';

export function* walk(nodes: readonly TreeNode[], depth = 1): Generator<{ node: TreeNode; depth: number }> {
  for (const node of nodes) {
    yield { node, depth };
    yield* walk(node.children, depth + 1);
  }
}

export function leavesOf(nodes: readonly TreeNode[]): TreeNode[] {
  return [...walk(nodes)].map((w) => w.node).filter((n) => n.children.length === 0);
}

export function find(nodes: readonly TreeNode[], kood: string): TreeNode {
  for (const { node } of walk(nodes)) if (node.kood === kood) return node;
  throw new Error(`no node ${kood}`);
}

export function countByDepth(nodes: readonly TreeNode[]): number[] {
  const counts: number[] = [];
  for (const { depth } of walk(nodes)) counts[depth - 1] = (counts[depth - 1] ?? 0) + 1;
  return counts;
}

/** The node's own code plus every descendant's, computed independently of the builder. */
export function subtreeKoods(node: TreeNode): string[] {
  return [...walk([node])].map((w) => w.node.kood);
}

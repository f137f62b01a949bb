import type { LocationLeaf, TreeNode } from './types.ts';

/** One unit of a location classification, as read from a region file. */
export interface PlaceItem {
  code: string;
  /** Null for a top-level unit. */
  parent: string | null;
  /** Shown in the tree. */
  label: string;
  /** What a company row carries as ehak_nimetus, and what address paths are made of. */
  name: string;
  population: number | null;
  /** LT only: the name variants a company row may carry for this unit itself. */
  variants?: readonly string[];
}

export interface LocationTables {
  locationTree: TreeNode[];
  locationLeaves: LocationLeaf[];
}

interface Node {
  item: PlaceItem;
  children: Node[];
}

/**
 * Builds a location tree (spec 2.6) and its leaves. With `codes`, every node carries its own code plus
 * all descendants' (what EE/LV/FI/PL clients send as ehak_kood) and leaves keep their code; with
 * `locations`, nodes carry the name variants of their subtree (what LT clients send as lt_locations) and
 * leaves have no code, because LT rows carry names. Children are ordered by code.
 */
export function buildLocationTables(
  items: readonly PlaceItem[],
  mode: 'codes' | 'locations',
  what: string,
): LocationTables {
  const byCode = new Map<string, Node>();
  for (const item of items) {
    if (byCode.has(item.code)) throw new Error(`${what}: duplicate code ${item.code}`);
    byCode.set(item.code, { item, children: [] });
  }
  const roots: Node[] = [];
  for (const node of byCode.values()) {
    const parentCode = node.item.parent;
    if (parentCode === null) {
      roots.push(node);
      continue;
    }
    const parent = byCode.get(parentCode);
    if (!parent) throw new Error(`${what}: ${node.item.code} has unknown parent ${parentCode}`);
    parent.children.push(node);
  }
  const byCodeOrder = (a: Node, b: Node): number => (a.item.code < b.item.code ? -1 : 1);

  const locationLeaves: LocationLeaf[] = [];
  const render = (node: Node, path: string[]): { tree: TreeNode; values: string[] } => {
    node.children.sort(byCodeOrder);
    const ownPath = [...path, node.item.name];
    const rendered = node.children.map((c) => render(c, ownPath));
    const own = mode === 'codes' ? [node.item.code] : [...(node.item.variants ?? [])];
    const values = [...own, ...rendered.flatMap((r) => r.values)];
    if (node.children.length === 0) {
      locationLeaves.push({
        kood: mode === 'codes' ? node.item.code : null,
        name: node.item.name,
        path: ownPath,
        population: node.item.population,
      });
    }
    const tree: TreeNode = {
      kood: node.item.code,
      label: node.item.label,
      children: rendered.map((r) => r.tree),
    };
    if (mode === 'codes') tree.codes = values;
    else tree.locations = [...new Set(values)];
    return { tree, values };
  };

  roots.sort(byCodeOrder);
  return { locationTree: roots.map((r) => render(r, []).tree), locationLeaves };
}

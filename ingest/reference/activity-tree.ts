import type { ActivityLeaf, TreeNode } from './types.ts';

/** One code of an activity classification, as read from a classifier file. */
export interface ClassItem {
  code: string;
  /** Null for a section (a tree root). */
  parent: string | null;
  /** English label where a real English classifier has this code. */
  en: string | null;
  /** Label in the register's language where the national classifier has one. */
  native: string | null;
}

export interface ActivityTables {
  activityTrees: Record<string, TreeNode[]>;
  activityLeaves: ActivityLeaf[];
}

interface Node {
  item: ClassItem;
  en: string | null;
  children: Node[];
}

/**
 * Builds the per-language trees and the leaf list from a flat classification. Items must be given parents
 * first (every file here is in classification order) and the order is kept.
 *
 * English for national leaves: a national fifth level (EMTAK, SN2007, PKD, SNI) has no English label of
 * its own, but when it is the only subdivision of its NACE class it covers exactly that class, so the
 * class's English label describes it. Other national codes keep their native label in the 'en' tree.
 */
export function buildActivityTables(
  items: readonly ClassItem[],
  nativeLanguage: string | null,
  what: string,
): ActivityTables {
  const byCode = new Map<string, Node>();
  const roots: Node[] = [];
  for (const item of items) {
    if (byCode.has(item.code)) throw new Error(`${what}: duplicate code ${item.code}`);
    const node: Node = { item, en: item.en, children: [] };
    byCode.set(item.code, node);
    if (item.parent === null) {
      roots.push(node);
    } else {
      const parent = byCode.get(item.parent);
      if (!parent) throw new Error(`${what}: ${item.code} has unknown parent ${item.parent}`);
      parent.children.push(node);
    }
  }

  const inheritEnglish = (node: Node): void => {
    for (const child of node.children) {
      if (child.en === null && node.children.length === 1 && node.en !== null) child.en = node.en;
      inheritEnglish(child);
    }
  };
  roots.forEach(inheritEnglish);

  const label = (node: Node, lang: 'en' | 'native'): string => {
    const text = lang === 'en' ? (node.en ?? node.item.native) : (node.item.native ?? node.en);
    if (text === null || text === '') throw new Error(`${what}: ${node.item.code} has no label`);
    return text;
  };
  const render = (node: Node, lang: 'en' | 'native'): TreeNode => ({
    kood: node.item.code,
    label: label(node, lang),
    children: node.children.map((c) => render(c, lang)),
  });

  const activityTrees: Record<string, TreeNode[]> = { en: roots.map((r) => render(r, 'en')) };
  if (nativeLanguage !== null) activityTrees[nativeLanguage] = roots.map((r) => render(r, 'native'));

  const activityLeaves: ActivityLeaf[] = [];
  const collect = (node: Node, section: string): void => {
    if (node.children.length === 0) {
      activityLeaves.push({ kood: node.item.code, label: label(node, 'native'), section });
    }
    node.children.forEach((c) => collect(c, section));
  };
  roots.forEach((r) => collect(r, r.item.code));

  return { activityTrees, activityLeaves };
}

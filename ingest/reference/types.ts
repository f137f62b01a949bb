import type { CountryCode, IndustrySystem } from '../../src/contract/countries.ts';

/** Spec 2.6 tree node, as served by /activities and /locations. */
export interface TreeNode {
  kood: string;
  label: string;
  children: TreeNode[];
  /** EE/LV/FI/PL location nodes: the node's code plus all descendants' codes (what clients send as ehak_kood). */
  codes?: string[];
  /** LT location nodes: the name variants a company row may carry (what clients send as lt_locations). */
  locations?: string[];
}

/** A leaf activity code a company can carry. */
export interface ActivityLeaf {
  kood: string;
  /** Label in the register's own language where the real classifier has one, else English. */
  label: string;
  /** Section letter (A-U), for weighting by sector. */
  section: string;
}

/** A leaf location a company can be registered at. */
export interface LocationLeaf {
  /** Code stored in companies.ehak_kood (null for LT, whose rows carry names, not codes). */
  kood: string | null;
  /** Name stored in companies.ehak_nimetus. */
  name: string;
  /** Names from the root down to this leaf (county, municipality, ...), for address texts. */
  path: string[];
  /** Real population where the source has it, else null; the generator weights capitals itself. */
  population: number | null;
}

export interface CountryReference {
  country: CountryCode;
  industrySystem: IndustrySystem;
  /** Activity tree per offered language; always has 'en', plus the native language where labels exist. */
  activityTrees: Record<string, TreeNode[]>;
  activityLeaves: ActivityLeaf[];
  /** The classification edition the tree is (`SN2025`, `PKD 2025`, ...): what the register codes in today. */
  activityEdition: string;
  /**
   * Codes of the retired edition (SN2007, PKD 2007, SNI 2007) → the served leaf they map forward to
   * (activity-forward.ts); empty where the register never used another edition here.
   */
  activityForward: ReadonlyMap<string, string>;
  /** Null for NO and SE (spec 4.2: no tree). */
  locationTree: TreeNode[] | null;
  locationLeaves: LocationLeaf[];
  /** Where each table came from (file, source, licence), copied into the snapshot manifest. */
  sources: { file: string; source: string; licence: string }[];
}

import { COUNTRIES, COUNTRY_CODES, type CountryCode } from '../contract/countries.ts';
import type { TreeNode } from '../contract/api-schemas.ts';
import { AppError, validationError } from '../errors/app-error.ts';
import type { Engine } from '../engine/engine.ts';
import { foldText } from '../engine/loaded-snapshot.ts';

/** Free discovery operations of spec 4.2, shared by the REST routes and the MCP tools. */

/** The seven countries with what the live snapshot holds of each: its day and the companies for sale. */
export function listCountries(engine: Engine) {
  const snap = engine.snapshot;
  return {
    countries: COUNTRY_CODES.map((code) => {
      const manifest = snap?.countries.includes(code) ? snap.country(code).manifest : null;
      return {
        code,
        name: COUNTRIES[code].name,
        as_of: manifest ? manifest.generated_at.slice(0, 10) : null,
        companies: manifest ? manifest.row_counts.companies_for_sale : null,
      };
    }),
  };
}

/** filters.json of the live snapshot: written from the same declarations search and count validate with. */
export function listFilters(engine: Engine, country: CountryCode) {
  return engine.use(async (snap) => snap.country(country).filters);
}

export function listActivities(engine: Engine, params: { country: CountryCode; lang: string }) {
  return engine.use(async (snap) => {
    const trees = snap.country(params.country).activityTrees;
    const tree = trees[params.lang];
    if (!tree) {
      const offered = Object.keys(trees).sort().join(', ');
      throw validationError([
        {
          loc: ['query', 'lang'],
          param: 'lang',
          msg: `language '${params.lang}' is not offered for ${params.country}; use one of: ${offered}`,
          type: 'enum',
        },
      ]);
    }
    return tree;
  });
}

/** Spec 8: a name search returns at most this many nodes. */
export const LOCATION_QUERY_LIMIT = 100;

function prune(nodes: TreeNode[], depthLeft: number): TreeNode[] {
  return nodes.map((n) => ({ ...n, children: depthLeft > 1 ? prune(n.children, depthLeft - 1) : [] }));
}

export function listLocations(
  engine: Engine,
  params: { country: CountryCode; query?: string | undefined; max_depth?: number | undefined },
) {
  return engine.use(async (snap) => {
    if (!COUNTRIES[params.country].hasLocationTree) {
      throw new AppError(
        'no_location_tree',
        `${params.country} has no location tree; use the free-text \`location\` filter instead`,
      );
    }
    const data = snap.country(params.country);
    if (params.query !== undefined) {
      const key = foldText(params.query);
      const maxDepth = params.max_depth ?? Infinity;
      const out: TreeNode[] = [];
      for (const loc of data.locationIndex) {
        if (loc.depth > maxDepth || !loc.key.includes(key)) continue;
        // Flat: each match stands alone, with its `codes`/`locations` still listing the whole subtree.
        out.push({ ...loc.node, children: [] });
        if (out.length === LOCATION_QUERY_LIMIT) break;
      }
      return out;
    }
    const tree = data.tree ?? [];
    if (params.max_depth === undefined) return tree;
    // Pruned trees are kept per depth, so every request of a snapshot gets the same object (cacheable).
    let pruned = data.prunedTrees.get(params.max_depth);
    if (!pruned) {
      pruned = prune(tree, params.max_depth);
      data.prunedTrees.set(params.max_depth, pruned);
    }
    return pruned;
  });
}

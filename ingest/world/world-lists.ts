import type { CountryCode } from '../../src/contract/countries.ts';
import type { CountryReference, LocationLeaf } from '../reference/types.ts';
import { toSweref99tm } from './geo.ts';
import { SE_KOMMUN_SEATS } from './profiles/se-kommun-seats.ts';
import {
  SE_EXPORT_IMPORT,
  SE_LISTINGS,
  SE_OWNER_CATEGORIES,
  SE_SME_CLASSES,
  SE_TURNOVER_CLASSES,
  type LabelledCode,
} from './profiles/se-register.ts';
import { POPULAR_BOOST, POPULAR_CLASSES, SECTOR_KEYS, SECTOR_RANGES, sectorOf } from './profiles/sectors.ts';
import type {
  ContactKind,
  CountryProfile,
  DigitPattern,
  LegalForm,
  NameStyle,
  Role,
} from './profiles/types.ts';
import { slugify } from './sql/template.ts';

/**
 * Everything national the SQL needs, as typed lists. They go into DuckDB as one row of one temp table
 * (`w_lists`), each list bound as a JSON parameter and cast to its DuckDB type, so no profile or
 * reference value is ever spliced into SQL text. Weighted choices become "slot lists": a list of item
 * numbers in which each item appears in proportion to its weight, so a row picks item
 * `slots[1 + floor(u * len(slots))]` from one hashed uniform u with no join.
 */

/** The contact kinds in the order of their list columns. */
const CONTACT_KINDS: readonly ContactKind[] = ['email', 'www', 'tel', 'mob'];

export interface ListColumn {
  name: string;
  type: string;
  value: unknown;
}

export interface FamilyPlan {
  key: string;
  /** First row index of the family and its row count. */
  start: number;
  count: number;
}

export interface WorldPlan {
  total: number;
  families: FamilyPlan[];
  /** Effective code range size per family (may exceed the profile's where maxCodeSpan allows). */
  spans: number[];
  /** Name templates, numbered 1.. in this order by `tpl_slots`; compiled to SQL by sql/base.ts. */
  templates: { style: NameStyle; template: string }[];
  mobile: readonly DigitPattern[];
  landline: readonly DigitPattern[];
  postcode: DigitPattern;
  address: { full: string; short: string };
  columns: ListColumn[];
}

/**
 * A list of lists becomes one flat list plus 0-based offsets and lengths: DuckDB copies an inner list
 * out of a nested list value for every row that indexes it, while indexing one flat constant list
 * costs nothing per row (measured: 1.6 s for 720 rows with nested slot lists, milliseconds flat).
 */
function nested(name: string, innerType: string, lists: readonly (readonly unknown[])[]): ListColumn[] {
  const offsets: number[] = [];
  let at = 0;
  for (const l of lists) {
    offsets.push(at);
    at += l.length;
  }
  return [
    { name, type: `${innerType}[]`, value: lists.flat() },
    { name: `${name}_off`, type: 'BIGINT[]', value: offsets },
    { name: `${name}_len`, type: 'BIGINT[]', value: lists.map((l) => l.length) },
  ];
}

const BIG = 65_536;
const SMALL = 1_000;

/** Stable 32-bit FNV-1a: seed-independent pseudo-randomness for reference weights (which leaf is popular). */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Inverse standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9). */
function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  const tail = (q: number) =>
    (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) /
    (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
  );
}

/**
 * Largest-remainder allocation of `size` slots to 1-based item numbers by weight. Every item with a
 * positive weight gets at least one slot when there is room, so a rare legal form still appears.
 */
export function slotList(weights: readonly number[], size: number): number[] {
  const total = weights.reduce((s, w) => s + Math.max(0, w), 0);
  if (total <= 0) throw new Error('slotList: all weights are zero');
  const counts = largestRemainder(
    weights.map((w) => (Math.max(0, w) / total) * size),
    size,
  );
  const positive = weights.filter((w) => w > 0).length;
  if (positive <= size) {
    for (let i = 0; i < weights.length; i++) {
      if ((weights[i] ?? 0) > 0 && counts[i] === 0) {
        const donor = counts.indexOf(Math.max(...counts));
        counts[donor] = (counts[donor] ?? 0) - 1;
        counts[i] = 1;
      }
    }
  }
  const out: number[] = [];
  counts.forEach((c, i) => {
    for (let k = 0; k < c; k++) out.push(i + 1);
  });
  return out;
}

/** Slots of the items by their `weight` (slotList). */
export const weightSlots = (items: readonly { weight: number }[], size: number): number[] =>
  slotList(
    items.map((x) => x.weight),
    size,
  );

/** Row counts per family that add up to the total exactly (largest remainder). */
export function familyCounts(shares: readonly number[], total: number): number[] {
  const sum = shares.reduce((s, x) => s + x, 0);
  return largestRemainder(
    shares.map((s) => (s / sum) * total),
    total,
  );
}

/** Whole counts of `exact` shares of `total` that add up to it: floors, then the largest remainders get one more. */
function largestRemainder(exact: readonly number[], total: number): number[] {
  const counts = exact.map((x) => Math.floor(x));
  let left = total - counts.reduce((s, c) => s + c, 0);
  const order = exact.map((x, i) => ({ i, frac: x - Math.floor(x) })).sort((a, b) => b.frac - a.frac);
  for (const { i } of order) {
    if (left <= 0) break;
    counts[i] = (counts[i] ?? 0) + 1;
    left--;
  }
  return counts;
}

interface LeafInfo {
  kood: string | null;
  name: string;
  town: string;
  county: string;
  pathText: string;
  weight: number;
  north: number | null;
  east: number | null;
}

function pathAt(path: readonly string[], level: number): string {
  const index = level < 0 ? path.length + level : Math.min(level, path.length - 1);
  return path[Math.max(0, index)] ?? '';
}

function townName(raw: string, profile: CountryProfile): string {
  const named = profile.townNames?.[raw];
  if (named) return named;
  let town = raw;
  for (const suffix of profile.townStrip) {
    if (town.endsWith(suffix)) town = town.slice(0, -suffix.length);
  }
  return town;
}

/**
 * Where companies sit. NO has real populations; elsewhere a leaf's base weight is the profile's place
 * factor (town vs village) times a stable, seed-independent log-normal spread (from a hash of the leaf),
 * so no arbitrary leaf dominates. Then the profile's clusters (capital, capital ring, big cities) take
 * their fixed shares of all rows, split among their leaves by the base weights, and the remaining leaves
 * share the rest.
 */
function locationLeaves(
  country: CountryCode,
  profile: CountryProfile,
  leaves: readonly LocationLeaf[],
): LeafInfo[] {
  if (leaves.length === 0) throw new Error(`${country}: the reference has no location leaves`);
  const base = new Map<number, number>();
  leaves.forEach((leaf, i) => {
    const pop = leaf.population;
    const u = (fnv(`${leaf.kood ?? ''}|${leaf.name}|${leaf.path.join('/')}`) + 0.5) / 2 ** 32;
    const spread = Math.exp(0.5 * normalQuantile(u));
    base.set(i, pop !== null && pop > 0 ? pop ** 1.05 : spread * (profile.placeFactor?.(leaf) ?? 1));
  });
  const info = leaves.map((leaf, i) => {
    const rawTown = pathAt(leaf.path, profile.townLevel);
    const rawCounty = pathAt(leaf.path, profile.countyLevel);
    return {
      leaf,
      i,
      rawTown,
      rawCounty,
      cluster: profile.clusters.findIndex((c) =>
        c.names.some((n) => n === leaf.name || n === rawTown || n === rawCounty),
      ),
    };
  });
  const clusterShare = profile.clusters.map((c, ci) => (info.some((x) => x.cluster === ci) ? c.share : 0));
  const restShare = Math.max(0.05, 1 - clusterShare.reduce((s, x) => s + x, 0));
  const groupTotal = new Map<number, number>();
  for (const x of info) groupTotal.set(x.cluster, (groupTotal.get(x.cluster) ?? 0) + (base.get(x.i) ?? 0));

  const seLan = country === 'SE' ? seLanMeans() : null;
  return info.map((x) => {
    const share = x.cluster >= 0 ? (clusterShare[x.cluster] ?? 0) : restShare;
    const weight = (share * (base.get(x.i) ?? 0)) / (groupTotal.get(x.cluster) ?? 1);
    let north: number | null = null;
    let east: number | null = null;
    if (seLan) {
      const seat = SE_KOMMUN_SEATS.get(x.leaf.name) ?? seLan.get((x.leaf.kood ?? '').slice(0, 2));
      if (!seat) throw new Error(`SE: no coordinates for kommun ${x.leaf.kood} ${x.leaf.name}`);
      const p = toSweref99tm(seat.lat, seat.lon);
      north = p.n;
      east = p.e;
    }
    const county = profile.countyLowerCase ? x.rawCounty.toLowerCase() : x.rawCounty;
    return {
      kood: x.leaf.kood,
      name: x.leaf.name,
      town: townName(x.rawTown, profile),
      county,
      pathText: x.leaf.path.join(', '),
      weight,
      north,
      east,
    };
  });

  function seLanMeans(): Map<string, { lat: number; lon: number }> {
    // Kommuner without a seat row take the mean of the seats in their län (first two code digits).
    const sums = new Map<string, { lat: number; lon: number; n: number }>();
    for (const leaf of leaves) {
      const seat = SE_KOMMUN_SEATS.get(leaf.name);
      if (!seat) continue;
      const key = (leaf.kood ?? '').slice(0, 2);
      const s = sums.get(key) ?? { lat: 0, lon: 0, n: 0 };
      sums.set(key, { lat: s.lat + seat.lat, lon: s.lon + seat.lon, n: s.n + 1 });
    }
    return new Map([...sums].map(([k, s]) => [k, { lat: s.lat / s.n, lon: s.lon / s.n }]));
  }
}

/** Activity leaves with a weight from the sector mix, a stable per-code spread and the popular-class boost. */
function activityLeaves(country: CountryCode, reference: CountryReference) {
  const leaves = reference.activityLeaves
    .map((leaf) => ({ leaf, sector: sectorOf(leaf.kood) }))
    .filter(
      (x): x is { leaf: (typeof x)['leaf']; sector: NonNullable<(typeof x)['sector']> } => x.sector !== null,
    );
  if (leaves.length === 0) throw new Error(`${country}: no activity leaf maps to a NACE division`);
  const perSector = new Map<string, number>();
  for (const x of leaves) perSector.set(x.sector.key, (perSector.get(x.sector.key) ?? 0) + 1);
  return leaves.map((x) => {
    const digits = x.leaf.kood.replace(/\D/g, '');
    const spread = Math.exp(1.2 * ((fnv(x.leaf.kood) / 0xffffffff) * 2 - 1));
    const boost = POPULAR_CLASSES.some((p) => digits.startsWith(p)) ? POPULAR_BOOST : 1;
    const weight = (x.sector.weight / (perSector.get(x.sector.key) ?? 1)) * spread * boost;
    return {
      kood: x.leaf.kood,
      label: x.leaf.label,
      sector: SECTOR_KEYS.indexOf(x.sector.key) + 1,
      productivity: x.sector.productivityEur,
      weight,
    };
  });
}

const STYLES: readonly NameStyle[] = ['org', 'person', 'assoc', 'housing'];

export function buildWorldPlan(
  country: CountryCode,
  profile: CountryProfile,
  reference: CountryReference,
  total: number,
): WorldPlan {
  const families = familyPlans(profile, total);
  const spans = codeSpans(country, profile, families);
  const coded = codedLists(profile);
  const acts = activityLeaves(country, reference);
  const locs = locationLeaves(country, profile, reference.locationLeaves);
  const names = nameLists(country, profile);
  const columns: ListColumn[] = [
    ...familyColumns(profile, families, spans, coded),
    ...formColumns(coded),
    ...placeColumns(acts, locs),
    ...nameColumns(profile.names, names),
    ...contactColumns(profile),
    ...(country === 'SE' ? seColumns() : []),
  ];
  return {
    total,
    families,
    spans,
    templates: names.templates,
    mobile: profile.contacts.mobile,
    landline: profile.contacts.landline,
    postcode: profile.address.postcode,
    address: { full: profile.address.full, short: profile.address.short },
    columns,
  };
}

function familyPlans(profile: CountryProfile, total: number): FamilyPlan[] {
  const counts = familyCounts(
    profile.families.map((f) => f.share),
    total,
  );
  const families: FamilyPlan[] = [];
  let start = 0;
  profile.families.forEach((f, k) => {
    const count = counts[k] ?? 0;
    families.push({ key: f.key, start, count });
    start += count;
  });
  return families;
}

/** Each family's span of registration codes. */
function codeSpans(country: CountryCode, profile: CountryProfile, families: readonly FamilyPlan[]): number[] {
  // A zero span (families coded elsewhere) would make `mod span` divide by zero in unused CASE branches.
  return profile.families.map((f, k) => {
    const needed = Math.ceil((families[k]?.count ?? 0) / (country === 'NO' || country === 'FI' ? 9 : 1));
    return Math.max(1, Math.min(f.maxCodeSpan ?? f.codeSpan, Math.max(f.codeSpan, needed)));
  });
}

type CodedLists = ReturnType<typeof codedLists>;

/** Forms, statuses and roles with their slots, numbered across the whole country. */
function codedLists(profile: CountryProfile) {
  // Forms, statuses and roles are numbered across the whole country (1-based, as SQL lists are).
  const forms: LegalForm[] = profile.families.flatMap((f) => f.forms);
  const formIndex = new Map<LegalForm, number>(forms.map((f, i) => [f, i + 1]));
  const statuses = profile.families.flatMap((f) => f.statuses);
  const statusIndex = new Map(statuses.map((s, i) => [s, i + 1]));
  const roles: Role[] = [];
  const roleSlots = forms.map((f) => {
    const list = f.roles ?? profile.defaultRoles;
    if (list.length === 0) return [0];
    const first = roles.length + 1;
    roles.push(...list);
    return weightSlots(list, SMALL).map((k) => first + k - 1);
  });
  if (roles.length === 0) roles.push({ code: '', label: '', weight: 1 });

  const capAmounts = forms.map((f) => f.capital?.common.map((c) => c.amount) ?? []);
  const capSlots = forms.map((f) => {
    if (!f.capital) return [0];
    const c = f.capital;
    // Item 0 stands for the log-normal tail.
    return slotList([c.tailShare, ...c.common.map((x) => x.weight)], SMALL).map((k) => k - 1);
  });
  return { forms, formIndex, statuses, statusIndex, roles, roleSlots, capAmounts, capSlots };
}

/** Name words, business words per sector and name templates with their slots. */
function nameLists(country: CountryCode, profile: CountryProfile) {
  const n = profile.names;
  const lastFemale = n.lastFemale.length > 0 ? n.lastFemale : n.lastMale;
  const business = SECTOR_KEYS.map((key) => {
    const list = n.business[key] ?? n.business['_'] ?? [];
    if (list.length === 0) throw new Error(`${country}: no business words for sector ${key}`);
    return [...list];
  });
  const templates: { style: NameStyle; template: string }[] = [];
  const templateSlots = STYLES.map((style) => {
    const list = n.templates[style];
    if (list.length === 0) throw new Error(`${country}: no ${style} name templates`);
    const first = templates.length;
    templates.push(...list.map((t) => ({ style, template: t.template })));
    return weightSlots(list, SMALL).map((k) => first + k);
  });
  return { lastFemale, business, templates, templateSlots };
}

const patternSlots = (list: readonly DigitPattern[]): number[] => weightSlots(list, SMALL);
const slugs = (list: readonly string[]): string[] => list.map(slugify);

function familyColumns(
  profile: CountryProfile,
  families: readonly FamilyPlan[],
  spans: readonly number[],
  { formIndex, statusIndex }: CodedLists,
): ListColumn[] {
  const fam = profile.families;
  return [
    // Families
    { name: 'fam_start', type: 'BIGINT[]', value: families.map((f) => f.start) },
    { name: 'fam_code_lo', type: 'BIGINT[]', value: fam.map((f) => f.codeLo) },
    { name: 'fam_code_span', type: 'BIGINT[]', value: spans },
    { name: 'fam_prefix', type: 'VARCHAR[]', value: fam.map((f) => f.codePrefix ?? '') },
    { name: 'fam_no_code', type: 'BOOLEAN[]', value: fam.map((f) => f.noCode === true) },
    { name: 'fam_first', type: 'DATE[]', value: fam.map((f) => f.firstRegistration) },
    { name: 'fam_last', type: 'DATE[]', value: fam.map((f) => f.lastRegistration ?? null) },
    { name: 'fam_mean_age_days', type: 'DOUBLE[]', value: fam.map((f) => f.meanAgeYears * 365.25) },
    ...nested(
      'fam_form_slots',
      'INTEGER',
      fam.map((f) => weightSlots(f.forms, BIG).map((k) => formIndex.get(f.forms[k - 1] as LegalForm) ?? 0)),
    ),
    ...nested(
      'fam_status_slots',
      'INTEGER',
      fam.map((f) =>
        weightSlots(f.statuses, BIG).map(
          (k) => statusIndex.get(f.statuses[k - 1] as CodedLists['statuses'][number]) ?? 0,
        ),
      ),
    ),
    ...CONTACT_KINDS.map((k) => ({
      name: `fam_src_${k}`,
      type: 'VARCHAR[]',
      value: fam.map((f) => f.contactSources?.[k] ?? null),
    })),
  ];
}

function formColumns({ forms, statuses, roles, roleSlots, capAmounts, capSlots }: CodedLists): ListColumn[] {
  return [
    // Forms
    { name: 'form_code', type: 'VARCHAR[]', value: forms.map((f) => f.code) },
    { name: 'form_label', type: 'VARCHAR[]', value: forms.map((f) => f.label) },
    { name: 'form_affix', type: 'VARCHAR[]', value: forms.map((f) => f.affix) },
    { name: 'form_affix_pos', type: 'VARCHAR[]', value: forms.map((f) => f.affixPosition) },
    { name: 'form_style', type: 'INTEGER[]', value: forms.map((f) => STYLES.indexOf(f.nameStyle) + 1) },
    { name: 'form_sole', type: 'BOOLEAN[]', value: forms.map((f) => f.soleTrader) },
    { name: 'form_size_shift', type: 'DOUBLE[]', value: forms.map((f) => f.sizeShift) },
    { name: 'form_vat', type: 'DOUBLE[]', value: forms.map((f) => f.vatShare) },
    { name: 'form_people', type: 'VARCHAR[]', value: forms.map((f) => f.people) },
    { name: 'form_accounts', type: 'BOOLEAN[]', value: forms.map((f) => f.filesAccounts) },
    ...nested('form_role_slots', 'INTEGER', roleSlots),
    ...nested('form_cap_amounts', 'DOUBLE', capAmounts),
    ...nested('form_cap_slots', 'INTEGER', capSlots),
    { name: 'form_cap_median', type: 'DOUBLE[]', value: forms.map((f) => f.capital?.tailMedian ?? 0) },
    { name: 'form_cap_decimals', type: 'INTEGER[]', value: forms.map((f) => f.capital?.decimals ?? 0) },
    { name: 'form_has_cap', type: 'BOOLEAN[]', value: forms.map((f) => f.capital !== null) },
    // Statuses and roles
    { name: 'st_code', type: 'VARCHAR[]', value: statuses.map((s) => s.staatus) },
    { name: 'st_source', type: 'VARCHAR[]', value: statuses.map((s) => s.source) },
    { name: 'st_text', type: 'VARCHAR[]', value: statuses.map((s) => s.text) },
    { name: 'role_code', type: 'VARCHAR[]', value: roles.map((r) => r.code) },
    { name: 'role_label', type: 'VARCHAR[]', value: roles.map((r) => r.label) },
  ];
}

function placeColumns(
  acts: ReturnType<typeof activityLeaves>,
  locs: ReturnType<typeof locationLeaves>,
): ListColumn[] {
  const actSlots = weightSlots(acts, BIG * 4);
  const actSectorSlots = SECTOR_RANGES.map((_, s) => {
    const weights = acts.map((a) => (a.sector === s + 1 ? a.weight : 0));
    return weights.some((w) => w > 0) ? slotList(weights, 4096) : actSlots.slice(0, 4096);
  });
  const locSlots = weightSlots(locs, BIG * 4);
  return [
    // Activities
    { name: 'act_kood', type: 'VARCHAR[]', value: acts.map((a) => a.kood) },
    { name: 'act_label', type: 'VARCHAR[]', value: acts.map((a) => a.label) },
    { name: 'act_sector', type: 'INTEGER[]', value: acts.map((a) => a.sector) },
    { name: 'act_prod', type: 'DOUBLE[]', value: acts.map((a) => a.productivity) },
    { name: 'act_slots', type: 'INTEGER[]', value: actSlots },
    ...nested('act_sector_slots', 'INTEGER', actSectorSlots),
    // Locations
    { name: 'loc_kood', type: 'VARCHAR[]', value: locs.map((l) => l.kood) },
    { name: 'loc_name', type: 'VARCHAR[]', value: locs.map((l) => l.name) },
    { name: 'loc_town', type: 'VARCHAR[]', value: locs.map((l) => l.town) },
    { name: 'loc_town_slug', type: 'VARCHAR[]', value: slugs(locs.map((l) => l.town)) },
    { name: 'loc_county', type: 'VARCHAR[]', value: locs.map((l) => l.county) },
    { name: 'loc_path', type: 'VARCHAR[]', value: locs.map((l) => l.pathText) },
    { name: 'loc_n', type: 'DOUBLE[]', value: locs.map((l) => l.north) },
    { name: 'loc_e', type: 'DOUBLE[]', value: locs.map((l) => l.east) },
    { name: 'loc_slots', type: 'INTEGER[]', value: locSlots },
  ];
}

function nameColumns(
  n: CountryProfile['names'],
  { lastFemale, business, templateSlots }: ReturnType<typeof nameLists>,
): ListColumn[] {
  return [
    // Names and words
    { name: 'first_m', type: 'VARCHAR[]', value: n.firstMale },
    { name: 'first_f', type: 'VARCHAR[]', value: n.firstFemale },
    { name: 'last_m', type: 'VARCHAR[]', value: n.lastMale },
    { name: 'last_f', type: 'VARCHAR[]', value: lastFemale },
    { name: 'first_m_slug', type: 'VARCHAR[]', value: slugs(n.firstMale) },
    { name: 'first_f_slug', type: 'VARCHAR[]', value: slugs(n.firstFemale) },
    { name: 'last_m_slug', type: 'VARCHAR[]', value: slugs(n.lastMale) },
    { name: 'last_f_slug', type: 'VARCHAR[]', value: slugs(lastFemale) },
    { name: 'stem_head', type: 'VARCHAR[]', value: n.stemHeads },
    { name: 'stem_tail', type: 'VARCHAR[]', value: n.stemTails },
    { name: 'stem_head_slug', type: 'VARCHAR[]', value: slugs(n.stemHeads) },
    { name: 'stem_tail_slug', type: 'VARCHAR[]', value: slugs(n.stemTails) },
    { name: 'stem_joiner', type: 'VARCHAR', value: n.stemJoiner },
    ...nested('biz', 'VARCHAR', business),
    { name: 'biz_slug', type: 'VARCHAR[]', value: slugs(business.flat()) },
    { name: 'assoc', type: 'VARCHAR[]', value: n.association },
    { name: 'assoc_slug', type: 'VARCHAR[]', value: slugs(n.association) },
    { name: 'streets', type: 'VARCHAR[]', value: n.streets },
    { name: 'streets_slug', type: 'VARCHAR[]', value: slugs(n.streets) },
    ...nested('tpl_slots', 'INTEGER', templateSlots),
  ];
}

function contactColumns(profile: CountryProfile): ListColumn[] {
  const tlds = weightSlots(profile.contacts.tlds, SMALL).map(
    (k) => profile.contacts.tlds[k - 1]?.tld ?? 'com',
  );
  return [
    // Contacts and addresses
    { name: 'mailboxes', type: 'VARCHAR[]', value: profile.contacts.mailboxes },
    { name: 'tlds', type: 'VARCHAR[]', value: tlds },
    { name: 'mob_slots', type: 'INTEGER[]', value: patternSlots(profile.contacts.mobile) },
    { name: 'tel_slots', type: 'INTEGER[]', value: patternSlots(profile.contacts.landline) },
    { name: 'currency', type: 'VARCHAR', value: profile.currency },
    { name: 'eur_rate', type: 'DOUBLE', value: profile.eurRate },
    { name: 'operating_share', type: 'DOUBLE', value: profile.operatingShare },
    { name: 'max_employees', type: 'DOUBLE', value: profile.maxEmployees },
    ...CONTACT_KINDS.map((k) => ({ name: `${k}_p`, type: 'DOUBLE', value: profile.contacts.published[k] })),
  ];
}

/** Sweden's labelled classes (turnover, export, owner, SME, listing), with slots where the world draws them. */
function seColumns(): ListColumn[] {
  const table = (name: string, list: readonly LabelledCode[], weighted: boolean): ListColumn[] => [
    { name: `se_${name}_code`, type: 'VARCHAR[]', value: list.map((c) => c.code) },
    { name: `se_${name}_label`, type: 'VARCHAR[]', value: list.map((c) => c.label) },
    ...(weighted
      ? [
          {
            name: `se_${name}_slots`,
            type: 'INTEGER[]',
            value: weightSlots(list, SMALL),
          },
        ]
      : []),
  ];
  return [
    ...table('turnover', SE_TURNOVER_CLASSES, false),
    ...table('export', SE_EXPORT_IMPORT, true),
    ...table('owner', SE_OWNER_CATEGORIES, true),
    ...table('sme', SE_SME_CLASSES, false),
    ...table('listing', SE_LISTINGS, true),
  ];
}

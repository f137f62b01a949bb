/**
 * How the search page presents the filters of /filters to people: in which group each sits, a label and a
 * hint in plain words. /filters itself speaks to API clients (parameter names, `codes` arrays); this is the
 * page's wording only, keyed by parameter, so a filter added to src/contract/filters.ts still shows (under
 * "More filters", with its own label and no hint) until it gets a line here.
 */

export interface FilterGroup {
  id: string;
  title: string;
  /** Open when the page loads; the others open on a click (or by themselves when one of theirs is set). */
  open: boolean;
  params: string[];
}

export const FILTER_GROUPS: FilterGroup[] = [
  {
    id: 'name',
    title: 'Name and code',
    open: true,
    params: ['company_name', 'registration_code', 'person_name'],
  },
  { id: 'activity', title: 'Activity', open: true, params: ['industry_codes'] },
  {
    id: 'place',
    title: 'Location',
    open: true,
    params: ['ehak_kood', 'lt_locations', 'location', 'postcode', 'se_workplace_kommun'],
  },
  {
    id: 'status',
    title: 'Status and registration',
    open: false,
    params: [
      'status',
      'legal_form',
      'registered_from',
      'vat_active',
      'has_tax_debt',
      'annual_report_filed',
      'annual_report_audited',
    ],
  },
  {
    id: 'contacts',
    title: 'Contacts',
    open: false,
    params: [
      'has_contact',
      'has_email',
      'has_website',
      'has_phone',
      'has_domain',
      'exclude_marketing_optout',
      'exclude_phone_optout',
    ],
  },
  {
    id: 'size',
    title: 'Size and finances',
    open: false,
    params: [
      'employees_band',
      'turnover_band',
      'last_quarter_employees_min',
      'share_capital_min',
      'annual_revenue_min',
      'annual_net_profit_min',
      'annual_equity_min',
      'annual_total_assets_min',
      'last_quarter_turnover_min',
      'last_4_quarters_turnover_sum_min',
      'last_quarter_turnover_growth_pct_min',
    ],
  },
];

/** The group of a filter not listed above. */
export const OTHER_GROUP: FilterGroup = { id: 'more', title: 'More filters', open: false, params: [] };

const HINTS: Record<string, string> = {
  company_name: 'Any part of the name. Capitals and accents do not matter.',
  registration_code: 'The exact code from the register.',
  person_name: 'A board member or representative named in the register. Any part of the name.',
  industry_codes:
    'Type part of an activity or its code, then pick it. Picking a group includes every activity in it.',
  ehak_kood: 'Type part of a place name, then pick it. A region includes every place in it.',
  lt_locations: 'Type part of a place name, then pick it. A region includes every place in it.',
  location: 'Any part of the municipality, county or street.',
  postcode: 'The first digits are enough: 10 finds every postcode that starts with 10.',
  se_workplace_kommun: 'Companies with an active workplace in the kommun, wherever their head office is.',
  status: 'Nothing chosen: active companies only.',
  registered_from: 'Both days included.',
  has_tax_debt: 'Yes: on the public list of tax debtors. No: not on it.',
  has_domain: 'Internet domains the register lists, separate from the website.',
  employees_band: 'An unknown size is its own class, never counted as no employees.',
  annual_net_profit_min: 'A loss is below zero; a minimum of 0 finds profitable companies only.',
  annual_report_filed: 'Yes: a financial statement was filed for the latest closed year.',
};

const LABELS: Record<string, string> = {
  ehak_kood: 'Town or region',
  lt_locations: 'Town or region',
  location: 'Place',
  postcode: 'Postcode (start)',
  has_tax_debt: 'On the tax-debtor list',
  registration_code: 'Registration code (exact)',
};

export interface FilterPresentation {
  group: string;
  label: string | null;
  hint: string | null;
}

/**
 * The page's groups, labels and hints, sent to the page in its boot data. The activity filter's label
 * names the country's own classification (EMTAK, NACE, EVRK, PKD, SNI), which the page adds.
 */
export function filterPresentation(): {
  groups: { id: string; title: string; open: boolean }[];
  byParam: Record<string, FilterPresentation>;
} {
  const byParam: Record<string, FilterPresentation> = {};
  for (const g of FILTER_GROUPS) {
    for (const p of g.params) {
      byParam[p] = { group: g.id, label: LABELS[p] ?? null, hint: HINTS[p] ?? null };
    }
  }
  return {
    groups: [...FILTER_GROUPS, OTHER_GROUP].map(({ id, title, open }) => ({ id, title, open })),
    byParam,
  };
}

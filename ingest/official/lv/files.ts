import { fixed } from '../links.ts';
import type { OfficialFile } from '../types.ts';

/*
 * Latvia's official files (registry-formats.md section 2). UR files are `;`-delimited UTF-8 with BOM and
 * RFC quoting; the VID files are comma-separated by the one source that checked the real file, and `;` by
 * another, so their delimiter is sniffed.
 */

/** 2.1 `register.csv`, 21 columns. */
export const REGISTER_HEADER = [
  'regcode',
  'sepa',
  'name',
  'name_before_quotes',
  'name_in_quotes',
  'name_after_quotes',
  'without_quotes',
  'regtype',
  'regtype_text',
  'type',
  'type_text',
  'registered',
  'terminated',
  'closed',
  'address',
  'index',
  'addressid',
  'region',
  'city',
  'atvk',
  'reregistration_term',
] as const;

/** 2.1 `officers.csv`: the names are confirmed, their order is not, so the reader goes by name. */
export const OFFICERS_HEADER = [
  'at_legal_entity_registration_number',
  'entity_type',
  'position',
  'governing_body',
  'name',
  'forename',
  'surname',
  'latvian_identity_number_masked',
  'birth_date',
  'legal_entity_registration_number',
  'rights_of_representation_type',
  'representation_with_at_least',
  'registered_on',
] as const;

/**
 * 2.1 `financial_statements.csv`: the 12 columns a live-verified analysis lists (the reference says "about
 * 22 in all"), so the reader goes by name.
 */
export const STATEMENTS_HEADER = [
  'id',
  'file_id',
  'legal_entity_registration_number',
  'source_schema',
  'source_type',
  'year',
  'year_started_on',
  'year_ended_on',
  'employees',
  'rounded_to_nearest',
  'currency',
  'created_at',
] as const;

/** `income_statements.csv`, joined on statement_id (a public parser quotes the full header). */
export const INCOME_HEADER = [
  'statement_id',
  'file_id',
  'net_turnover',
  'by_nature_inventory_change',
  'by_nature_long_term_investment_expenses',
  'by_nature_other_operating_revenues',
  'by_nature_material_expenses',
  'by_nature_labour_expenses',
  'by_nature_depreciation_expenses',
  'by_function_cost_of_goods_sold',
  'by_function_gross_profit',
  'by_function_selling_expenses',
  'by_function_administrative_expenses',
  'by_function_other_operating_revenues',
  'other_operating_expenses',
  'equity_investment_earnings',
  'other_long_term_investment_earnings',
  'other_interest_revenues',
  'investment_fair_value_adjustments',
  'interest_expenses',
  'extra_revenues',
  'extra_expenses',
  'income_before_income_taxes',
  'provision_for_income_taxes',
  'income_after_income_taxes',
  'other_taxes',
  'extra_dividends',
  'net_income',
] as const;

/** `balance_sheets.csv` (live-verified header). */
export const BALANCE_HEADER = [
  'statement_id',
  'file_id',
  'cash',
  'marketable_securities',
  'accounts_receivable',
  'inventories',
  'total_current_assets',
  'investments',
  'fixed_assets',
  'intangible_assets',
  'total_non_current_assets',
  'total_assets',
  'future_housing_repairs_payments',
  'current_liabilities',
  'non_current_liabilities',
  'provisions',
  'equity',
  'total_equities',
] as const;

/** 2.2 VID annual paid taxes, 3 tax years; amounts in thousands of EUR. */
export const VID_TAXES_HEADER = [
  'Registracijas_kods',
  'Nosaukums',
  'Taksacijas_gads',
  'Uznemejdarbibas_forma',
  'Pamatdarbibas_NACE_kods',
  'Juridiska_adrese_ATVK_kods',
  'Juridiska_adrese_ATVK_nosaukums',
  'Samaksato_VID_administreto_nodoklu_kopsumma_tukst_EUR',
  'Taja_skaita_IIN',
  'Taja_skaita_VSAOI',
  'Videjais_nodarbinato_personu_skaits_cilv',
] as const;

/**
 * Optional files whose column lists are only partly confirmed (the names below were seen in public code that
 * reads the real files; their full headers were not): VAT payers, insolvency proceedings, liquidations.
 * They are read by column name; see docs/ingest.md.
 */
export const LV_EXTRA_FILE_NAMES = {
  vat: 'pdb_pvnmaksataji_odata.csv',
  insolvency: 'insolvency_legal_person_proceeding.csv',
  liquidations: 'liquidations.csv',
} as const;
export const VAT_HEADER = ['Numurs', 'Nosaukums', 'Aktivs', 'Registrets', 'Buvniecibas_pazime'] as const;
export const INSOLVENCY_HEADER = [
  'proceeding_id',
  'debtor_registration_number',
  'proceeding_started_on',
  'proceeding_ended_on',
  'proceeding_form',
  'proceeding_type',
  'proceeding_resolution_name',
  'court_name',
] as const;
export const LIQUIDATIONS_HEADER = ['legal_entity_registration_number'] as const;

export const LV_FILE_NAMES = {
  register: 'register.csv',
  officers: 'officers.csv',
  statements: 'financial_statements.csv',
  income: 'income_statements.csv',
  balance: 'balance_sheets.csv',
  taxes: 'pdb_nm_komersantu_samaksato_nodoklu_kopsumas_odata.csv',
} as const;

const GOV = 'https://data.gov.lv/dati/dataset/';

/** A file of UR's annual-report dataset on data.gov.lv: one resource of the dataset each. */
function urStatements(
  key: 'statements' | 'income' | 'balance',
  resource: string,
  adds: string,
): OfficialFile {
  const name = LV_FILE_NAMES[key];
  return {
    key,
    title: `UR ${name}`,
    match: new RegExp(`^${name.replaceAll('.', '\\.')}$`),
    required: false,
    adds,
    downloads: fixed(
      `${GOV}8d31b878-536a-44aa-a013-8bc6b669d477/resource/${resource}/download/${name}`,
      name,
    ),
    minBytes: 1_000_000,
  };
}

export const LV_FILES: readonly OfficialFile[] = [
  {
    key: 'register',
    title: 'UR register.csv',
    match: /^register\.csv$/,
    required: true,
    downloads: fixed(
      `${GOV}4de9697f-850b-45ec-8bba-61fa09ce932f/resource/25e80bf3-f107-4ab4-89ef-251b5b9374e9/download/register.csv`,
      LV_FILE_NAMES.register,
    ),
    minBytes: 1_000_000,
  },
  {
    key: 'officers',
    title: 'UR officers.csv',
    match: /^officers\.csv$/,
    required: false,
    adds: 'board members and other officers (UR officers.csv)',
    downloads: fixed('https://dati.ur.gov.lv/officers/officers.csv', LV_FILE_NAMES.officers),
    minBytes: 1_000_000,
  },
  urStatements(
    'statements',
    '27fcc5ec-c63b-4bfd-bb08-01f073a52d04',
    'annual history and annual_* figures: years, employees, currency and rounding of each annual report (UR financial_statements.csv)',
  ),
  urStatements(
    'income',
    'd5fd17ef-d32e-40cb-8399-82b780095af0',
    'annual turnover and net income (UR income_statements.csv)',
  ),
  urStatements(
    'balance',
    '50ef4f26-f410-4007-b296-22043ca3dc43',
    'annual total assets and equity (UR balance_sheets.csv)',
  ),
  {
    key: 'taxes',
    title: 'VID paid taxes of companies, 3 tax years',
    match: /^pdb_nm_komersantu_samaksato_nodoklu_kopsumas_odata\.csv$/,
    required: false,
    adds: 'the main activity code (NACE) (VID paid taxes)',
    downloads: fixed(
      `${GOV}5ed74664-b49d-4b28-aacb-040931646e9b/resource/a42d6e8c-1768-4939-ba9b-7700d4f1dd3a/download/${LV_FILE_NAMES.taxes}`,
      LV_FILE_NAMES.taxes,
    ),
    minBytes: 1_000_000,
  },
  {
    key: 'vat',
    title: 'VID VAT payers (pdb_pvnmaksataji_odata.csv)',
    match: /^pdb_pvnmaksataji_odata\.csv$/,
    required: false,
    adds: 'vat_active and vat_number (VID VAT payers)',
    downloads: fixed(
      `${GOV}9a5eae1c-2438-48cf-854b-6a2c170f918f/resource/610910e9-e086-4c5b-a7ea-0a896a697672/download/${LV_EXTRA_FILE_NAMES.vat}`,
      LV_EXTRA_FILE_NAMES.vat,
    ),
    minBytes: 100_000,
  },
  {
    key: 'insolvency',
    title: 'UR insolvency proceedings of legal persons',
    match: /^insolvency_legal_person_proceeding\.csv$/,
    required: false,
    adds: 'insolvency (N) and legal-protection (T) states (UR insolvency proceedings)',
    downloads: fixed(
      `${GOV}bb54838d-9365-4f76-8513-804f4efa8ab6/resource/8065ad80-1a4d-4afb-b1d1-d93b9a62b1cc/download/${LV_EXTRA_FILE_NAMES.insolvency}`,
      LV_EXTRA_FILE_NAMES.insolvency,
    ),
    minBytes: 10_000,
  },
  {
    key: 'liquidations',
    title: 'UR liquidations',
    match: /^liquidations\.csv$/,
    required: false,
    adds: 'the in-liquidation (L) state (UR liquidations)',
    // Unconfirmed URL: the dati.ur.gov.lv/<dataset>/<file> pattern the other UR files follow.
    downloads: fixed(
      'https://dati.ur.gov.lv/liquidations/liquidations.csv',
      LV_EXTRA_FILE_NAMES.liquidations,
    ),
    minBytes: 10_000,
  },
];

export interface paths {
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness (no authentication); the live snapshot for admin keys */
    get: operations['health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/countries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the seven countries */
    get: operations['listCountries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/filters': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A country's search and count filters (the authority on which filters apply) */
    get: operations['listFilters'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/activities': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Activity-code tree (EMTAK, NACE, EVRK, PKD or SNI); leaf codes are sent as industry_codes */
    get: operations['listActivities'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/locations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Location tree (EE, LV, LT, FI, PL); NO and SE have none (400)
     * @description For EE/LV/FI/PL send a node's `codes` as `ehak_kood`; a parent `kood` alone matches only rows tagged with exactly that code. For LT send a node's `locations` as `lt_locations`.
     */
    get: operations['listLocations'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/count': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Exact count of the companies matching the search filters (free, rate-limited)
     * @description Accepts the same filters as /companies (not paging or sorting). Active companies only unless `status` is sent (`__all__` = every status). Repeat a parameter to send several values.
     */
    get: operations['countCompanies'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/companies': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Search companies (paged; metered per returned row)
     * @description Reserves page_size rows at the country price and charges the rows returned. Active companies only unless `status` is sent. A filter the country does not list in /filters is a 422; so is sending both the English and the deprecated Estonian spelling of one parameter.
     */
    get: operations['searchCompanies'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/companies/{registrikood}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One company in full (metered: one row) */
    get: operations['getCompany'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/companies/{registrikood}/history': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Time series of one company (metered: one row; free when there is no history) */
    get: operations['getCompanyHistory'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/companies/{registrikood}/workplaces': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Active workplaces of a Swedish company, main first (metered: one SE row) */
    get: operations['getCompanyWorkplaces'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/changes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Companies added, removed or changed since a day or a snapshot (paged; metered per item)
     * @description Send `since` (YYYY-MM-DD: changes recorded on or after that day) or `since_snapshot` (the changes recorded by later snapshots). Oldest first: by day, snapshot, registration code. Reserves page_size items at the country row price and charges the items returned; an empty page is free. A `since` before the kept history is a 422 naming the oldest date available.
     */
    get: operations['listChanges'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/companies/export': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Every company matching the search filters as one CSV, NDJSON or Parquet file (metered per row)
     * @description The search rows of every matching company, sorted like /companies, at most `max_rows`. Before the first byte it reserves min(matching rows, max_rows) at the country row price (402 and nothing runs when the balance cannot cover it); it charges the rows in the bytes the client acknowledged receiving (TCP) and releases the rest, so a download cut short costs only what the client received, at most its unread receive buffer more than it read (a Parquet row counts once its whole row group of 10,240 rows is sent). The usage `meta` comes after the body: for ndjson as a last line `{"meta": {...}}`, for csv and parquet in the HTTP trailer `regdata-meta` (JSON). Idempotency-Key works as on search: a repeat streams the same rows again without a second charge. A download link from the MCP tool `export_companies` carries `key_id`, `expires` and `signature` and is sent without Authorization; it is metered to the key it names exactly like this call, and any change to it, or its expiry, is a 403.
     */
    get: operations['exportCompanies'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/data/estimate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * What a metered call would reserve now (free, rate-limited)
     * @description Send `operation` and that operation’s own parameters (detail, history and workplaces take the registration code as `registrikood`); they are validated as the call validates them. `rows` and `credits_needed` follow the operation’s reserve rule: page_size for search and changes, min(matching rows, max_rows) for export, 1 for detail, history and workplaces; a waiver (admin key, Unlimited plan, country subscription, trial) makes credits_needed 0.
     */
    get: operations['estimateCost'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /**
     * @description ISO 3166-1 alpha-2 code of one of the seven countries
     * @enum {string}
     */
    CountryInput: 'EE' | 'LV' | 'LT' | 'NO' | 'FI' | 'PL' | 'SE';
    /**
     * @description ISO 3166-1 alpha-2 code of one of the seven countries
     * @enum {string}
     */
    Country: 'EE' | 'LV' | 'LT' | 'NO' | 'FI' | 'PL' | 'SE';
    CountryItem: {
      code: components['schemas']['Country'];
      name: string;
      /** @description The day the country's data was published into the live snapshot; null when none is loaded */
      as_of: string | null;
      /** @description Companies for sale in the live snapshot */
      companies: number | null;
    };
    FilterSpec: {
      param?: string | null;
      param_min?: string | null;
      param_max?: string | null;
      param_from?: string | null;
      param_to?: string | null;
      /** @enum {string} */
      type: 'text' | 'select' | 'multi_select' | 'boolean' | 'number_range' | 'date_range' | 'tree';
      label: string;
      multi?: boolean | null;
      options?:
        | ({
            value: string | number;
            label: string;
          } & {
            [key: string]: unknown;
          })[]
        | null;
      options_url?: string | null;
      note?: string | null;
    } & {
      [key: string]: unknown;
    };
    TreeNode: {
      kood: string;
      label: string;
      children: components['schemas']['TreeNode'][];
      /** @description EE/LV/FI/PL locations: this node and all descendants */
      codes?: string[];
      /** @description LT locations: name variants to send as lt_locations */
      locations?: string[];
    } & {
      [key: string]: unknown;
    };
    CompanyRow: {
      registrikood: string;
      arinimi?: string | null;
      oiguslik_vorm?: string | null;
      oiguslik_vorm_tekstina?: string | null;
      staatus?: string | null;
      esmaregistreerimise_kpv?: string | null;
      ehak_kood?: string | null;
      ehak_nimetus?: string | null;
      asukoht?: string | null;
      last_quarter_turnover?: number | null;
      last_quarter_employees_number?: number | null;
      last_4_quarters_turnover_sum?: number | null;
      last_quarter_turnover_growth_pct?: number | null;
      kmkr_nr?: string | null;
      vat_active?: boolean | null;
      vat_number?: string | null;
      kapital?: string | null;
      annual_revenue?: number | null;
      annual_net_profit?: number | null;
      annual_equity?: number | null;
      annual_total_assets?: number | null;
      annual_report_year?: number | null;
      has_tax_debt?: boolean | null;
      se_employees_band?: number | null;
      se_turnover_band?: number | null;
      marketing_optout?: boolean | null;
      phone_optout?: boolean | null;
      annual_report_filed?: boolean | null;
      annual_report_audited?: boolean | null;
    } & {
      [key: string]: unknown;
    };
    UsageMeta: {
      rows_returned: number | null;
      credits_charged: number;
      credits_reserved: number | null;
      credit_balance: number;
      /**
       * Format: date
       * @description The day the country's data was published into the live snapshot (as the Data-As-Of header)
       */
      data_as_of: string;
      /** @description The snapshot that answered */
      snapshot_id: string;
    };
    CompanyDetail: {
      registrikood: string;
      arinimi?: string | null;
      oiguslik_vorm?: string | null;
      oiguslik_vorm_tekstina?: string | null;
      staatus?: string | null;
      esmaregistreerimise_kpv?: string | null;
      ehak_kood?: string | null;
      ehak_nimetus?: string | null;
      asukoht?: string | null;
      last_quarter_turnover?: number | null;
      last_quarter_employees_number?: number | null;
      last_4_quarters_turnover_sum?: number | null;
      last_quarter_turnover_growth_pct?: number | null;
      kmkr_nr?: string | null;
      vat_active?: boolean | null;
      vat_number?: string | null;
      kapital?: string | null;
      annual_revenue?: number | null;
      annual_net_profit?: number | null;
      annual_equity?: number | null;
      annual_total_assets?: number | null;
      annual_report_year?: number | null;
      has_tax_debt?: boolean | null;
      se_employees_band?: number | null;
      se_turnover_band?: number | null;
      marketing_optout?: boolean | null;
      phone_optout?: boolean | null;
      annual_report_filed?: boolean | null;
      annual_report_audited?: boolean | null;
      oigusliku_vormi_alaliik?: string | null;
      staatus_tekstina?: string | null;
      /** @description The register's own status code before normalisation */
      source_status?: string | null;
      aadress_text?: string | null;
      /** @description Share capital as a number, in kapital_currency */
      kapital_amount?: number | null;
      kapital_currency?: string | null;
      pl_regon?: string | null;
      pl_nip?: string | null;
      is_sole_trader?: boolean | null;
      contacts: ({
        liik: string;
        sisu: string;
        source: string | null;
      } & {
        [key: string]: unknown;
      })[];
      registered_domains: string[];
      emtak: ({
        kood: string;
        label?: string | null;
        is_main?: boolean | null;
      } & {
        [key: string]: unknown;
      })[];
      people: ({
        nimi: string;
        isiku_tyyp?: string | null;
        roll?: string | null;
        roll_tekstina?: string | null;
        algus_kpv?: string | null;
      } & {
        [key: string]: unknown;
      })[];
      latest_metrics:
        | ({
            year?: number | null;
            quarter?: number | null;
            month?: number | null;
            turnover?: number | null;
            employees?: number | null;
            turnover_period?:
              | ({
                  year?: number | null;
                  quarter?: number | null;
                  month?: number | null;
                  as_of?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            employees_period?:
              | ({
                  year?: number | null;
                  quarter?: number | null;
                  month?: number | null;
                  as_of?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
          } & {
            [key: string]: unknown;
          })
        | null;
      se_register?:
        | ({
            export_import?:
              | ({
                  code?: string | null;
                  label?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            owner_category?:
              | ({
                  code?: string | null;
                  label?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            sme_class?:
              | ({
                  code?: string | null;
                  label?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            listing?:
              | ({
                  code?: string | null;
                  label?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            turnover_class?:
              | ({
                  code?: string | null;
                  label?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            activity_start_date?: string | null;
            trade_names?: string[] | null;
            source?: string | null;
          } & {
            [key: string]: unknown;
          })
        | null;
    } & {
      [key: string]: unknown;
    };
    HistoryPeriod: {
      period: string;
      /** @enum {string} */
      granularity: 'monthly' | 'quarterly' | 'annual' | 'year_to_date' | 'snapshot';
      year: number;
      quarter: number;
      month: number;
      turnover?: number | null;
      employees?: number | null;
      state_taxes?: number | null;
      labour_taxes?: number | null;
      as_of?: string | null;
    } & {
      [key: string]: unknown;
    };
    HistoryData: {
      registrikood: string;
      arinimi?: string | null;
      country: string;
      /** @description quarterly, monthly, annual, snapshot, none, or mixed when rows differ */
      granularity: string;
      periods: components['schemas']['HistoryPeriod'][];
    } & {
      [key: string]: unknown;
    };
    Workplace: {
      cfar_nr: number;
      name: string;
      is_main: boolean;
      visit_address?: string | null;
      visit_postcode?: string | null;
      visit_town?: string | null;
      postal_address?: string | null;
      postal_code?: string | null;
      postal_town?: string | null;
      kommun_code: string;
      kommun_name?: string | null;
      activity_codes: string[];
      employees_band_code: number;
      phone?: string | null;
      email?: string | null;
      sweref99tm_n?: number | null;
      sweref99tm_e?: number | null;
      marketing_optout: boolean;
      phone_optout: boolean;
    } & {
      [key: string]: unknown;
    };
    Error: {
      detail: string;
    };
    ValidationIssue: {
      /** @description Where: ["query", name] or ["path", name] */
      loc: (string | number)[];
      /** @description The parameter name as sent */
      param: string;
      msg: string;
      /** @description Machine-readable kind, e.g. unknown_parameter, too_big, filter_not_available */
      type: string;
    };
    ValidationError: {
      detail: components['schemas']['ValidationIssue'][];
    };
    ChangeItem: {
      registrikood: string;
      /** @enum {string} */
      change: 'added' | 'removed' | 'changed';
      /** @description For `changed`: the API fields whose value changed; empty for `added` and `removed` */
      fields: string[];
      /** @description The snapshot whose publish recorded the change */
      snapshot_id: string;
      /**
       * Format: date
       * @description The day that snapshot was published
       */
      as_of: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  health: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Liveness (no authentication); the live snapshot for admin keys */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok' | 'unavailable';
            snapshot_id?: string | null;
            countries?: {
              [key: string]: {
                generated_at: string;
                age_seconds: number;
                companies_for_sale: number;
              };
            };
          };
        };
      };
      /** @description Service Unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok' | 'unavailable';
            snapshot_id?: string | null;
            countries?: {
              [key: string]: {
                generated_at: string;
                age_seconds: number;
                companies_for_sale: number;
              };
            };
          };
        };
      };
      /** @description Malformed request (bad URL, request headers too large) */
      '4XX': {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listCountries: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The seven countries, code and name */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            countries: components['schemas']['CountryItem'][];
          };
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listFilters: {
    parameters: {
      query: {
        country: components['schemas']['CountryInput'];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The country's filters: parameters, value types, options and ranges */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            country: string;
            /** @enum {string} */
            industry_system: 'EMTAK' | 'NACE' | 'EVRK' | 'PKD' | 'SNI';
            filters: components['schemas']['FilterSpec'][];
          };
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listActivities: {
    parameters: {
      query: {
        country: components['schemas']['CountryInput'];
        /** @description Label language: `en` (default) or the country's own language where the classifier has labels */
        lang?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The activity tree in the requested language */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TreeNode'][];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listLocations: {
    parameters: {
      query: {
        country: components['schemas']['CountryInput'];
        /** @description Case-insensitive name search: matching nodes flat, at most 100, instead of the tree */
        query?: string;
        /** @description Prunes the tree below this depth; 1 = top level only */
        max_depth?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The location tree, pruned to max_depth, or the flat matches of a name search */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TreeNode'][];
        };
      };
      /** @description Malformed registration code, or a country without a location tree */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  countCompanies: {
    parameters: {
      query: {
        country: components['schemas']['CountryInput'];
        /** @description Company name contains. Case- and accent-insensitive partial match; several values match any of them. Countries: all countries. */
        company_name?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `company_name`.
         */
        arinimi?: string[];
        /** @description Registration code. Exact registration code. Countries: all countries. */
        registration_code?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registration_code`.
         */
        registrikood?: string;
        /** @description Activity codes. Leaf codes from /activities; a company matches when any of its activity codes is sent. Countries: all countries. */
        industry_codes?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `industry_codes`.
         */
        emtak_codes?: string[];
        /** @description Legal form. Countries: all countries. */
        legal_form?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `legal_form`.
         */
        oiguslik_vorm?: string[];
        /** @description Status. Omitted: active (R) only. `__all__`: every status. Countries: all countries. */
        status?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `status`.
         */
        staatus?: string[];
        /** @description Share capital. Countries: EE, LV, NO, PL. */
        share_capital_min?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_min`.
         */
        kapital_min?: number;
        /** @description Share capital. Countries: EE, LV, NO, PL. */
        share_capital_max?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_max`.
         */
        kapital_max?: number;
        /** @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries. */
        registered_from?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_from`.
         */
        esmaregistreerimise_from?: string;
        /** @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries. */
        registered_to?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_to`.
         */
        esmaregistreerimise_to?: string;
        /** @description Location (free text). Case- and accent-insensitive partial match on municipality, county and address. Countries: NO, SE. */
        location?: string;
        /** @description Location. Send a node's `codes` array (repeat the parameter); a parent code alone matches only rows tagged with exactly that code. Countries: EE, LV, FI, PL. */
        ehak_kood?: string[];
        /** @description Location. Send a node's `locations` array (repeat the parameter); the node's `kood` does not match. Countries: LT. */
        lt_locations?: string[];
        /** @description VAT-registered. Countries: all countries. */
        vat_active?: boolean;
        /** @description Has e-mail. Countries: all countries. */
        has_email?: boolean;
        /** @description Has website. Countries: all countries. */
        has_website?: boolean;
        /** @description Has phone. Countries: all countries. */
        has_phone?: boolean;
        /** @description Has any contact. Countries: all countries. */
        has_contact?: boolean;
        /** @description Has registered domain. Registry-sourced domains, separate from websites. Countries: EE, FI. */
        has_domain?: boolean;
        /** @description Tax debt. true: on the public tax-debtor list; false: not on it. Countries: EE. */
        has_tax_debt?: boolean;
        /** @description Exclude postal marketing blocks. Countries: SE. */
        exclude_marketing_optout?: boolean;
        /** @description Exclude telephone marketing blocks. Countries: SE. */
        exclude_phone_optout?: boolean;
        /** @description Employees (SCB size class). 0 = unknown, never treated as zero employees. Countries: SE. */
        employees_band?: number[];
        /** @description Turnover (SCB class). Countries: SE. */
        turnover_band?: number[];
        /** @description Annual revenue. Countries: EE, NO, LV. */
        annual_revenue_min?: number;
        /** @description Annual revenue. Countries: EE, NO, LV. */
        annual_revenue_max?: number;
        /** @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV. */
        annual_net_profit_min?: number;
        /** @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV. */
        annual_net_profit_max?: number;
        /** @description Annual equity. Countries: EE, NO, LV. */
        annual_equity_min?: number;
        /** @description Annual equity. Countries: EE, NO, LV. */
        annual_equity_max?: number;
        /** @description Annual total assets. Countries: EE, NO, LV. */
        annual_total_assets_min?: number;
        /** @description Annual total assets. Countries: EE, NO, LV. */
        annual_total_assets_max?: number;
        /** @description Last quarter turnover (EUR). Countries: EE, LV, LT. */
        last_quarter_turnover_min?: number;
        /** @description Last quarter turnover (EUR). Countries: EE, LV, LT. */
        last_quarter_turnover_max?: number;
        /** @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT. */
        last_4_quarters_turnover_sum_min?: number;
        /** @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT. */
        last_4_quarters_turnover_sum_max?: number;
        /** @description Employees, latest period. Countries: EE, LV, LT, NO. */
        last_quarter_employees_min?: number;
        /** @description Employees, latest period. Countries: EE, LV, LT, NO. */
        last_quarter_employees_max?: number;
        /** @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT. */
        last_quarter_turnover_growth_pct_min?: number;
        /** @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT. */
        last_quarter_turnover_growth_pct_max?: number;
        /** @description Person (board member / representative). Partial, case- and accent-insensitive match on names of publicly registered people. Countries: EE, LV, NO, FI, PL. */
        person_name?: string;
        /** @description Annual report filed. KRS entities: true = a financial statement was filed for the latest closed year. Countries: PL. */
        annual_report_filed?: boolean;
        /** @description Annual report audited. Countries: PL. */
        annual_report_audited?: boolean;
        /** @description Has a workplace in kommun. SCB kommun codes; finds companies with an active workplace there. Countries: SE. */
        se_workplace_kommun?: string[];
        /** @description Only companies added or changed in a snapshot published on or after this day (YYYY-MM-DD); a day before the kept change history is a 422 naming the oldest date available */
        updated_since?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The exact number of matching companies */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            country: string;
            count: number | null;
            count_mode: string | null;
          };
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  searchCompanies: {
    parameters: {
      query: {
        country: components['schemas']['CountryInput'];
        /** @description Company name contains. Case- and accent-insensitive partial match; several values match any of them. Countries: all countries. */
        company_name?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `company_name`.
         */
        arinimi?: string[];
        /** @description Registration code. Exact registration code. Countries: all countries. */
        registration_code?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registration_code`.
         */
        registrikood?: string;
        /** @description Activity codes. Leaf codes from /activities; a company matches when any of its activity codes is sent. Countries: all countries. */
        industry_codes?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `industry_codes`.
         */
        emtak_codes?: string[];
        /** @description Legal form. Countries: all countries. */
        legal_form?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `legal_form`.
         */
        oiguslik_vorm?: string[];
        /** @description Status. Omitted: active (R) only. `__all__`: every status. Countries: all countries. */
        status?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `status`.
         */
        staatus?: string[];
        /** @description Share capital. Countries: EE, LV, NO, PL. */
        share_capital_min?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_min`.
         */
        kapital_min?: number;
        /** @description Share capital. Countries: EE, LV, NO, PL. */
        share_capital_max?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_max`.
         */
        kapital_max?: number;
        /** @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries. */
        registered_from?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_from`.
         */
        esmaregistreerimise_from?: string;
        /** @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries. */
        registered_to?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_to`.
         */
        esmaregistreerimise_to?: string;
        /** @description Location (free text). Case- and accent-insensitive partial match on municipality, county and address. Countries: NO, SE. */
        location?: string;
        /** @description Location. Send a node's `codes` array (repeat the parameter); a parent code alone matches only rows tagged with exactly that code. Countries: EE, LV, FI, PL. */
        ehak_kood?: string[];
        /** @description Location. Send a node's `locations` array (repeat the parameter); the node's `kood` does not match. Countries: LT. */
        lt_locations?: string[];
        /** @description VAT-registered. Countries: all countries. */
        vat_active?: boolean;
        /** @description Has e-mail. Countries: all countries. */
        has_email?: boolean;
        /** @description Has website. Countries: all countries. */
        has_website?: boolean;
        /** @description Has phone. Countries: all countries. */
        has_phone?: boolean;
        /** @description Has any contact. Countries: all countries. */
        has_contact?: boolean;
        /** @description Has registered domain. Registry-sourced domains, separate from websites. Countries: EE, FI. */
        has_domain?: boolean;
        /** @description Tax debt. true: on the public tax-debtor list; false: not on it. Countries: EE. */
        has_tax_debt?: boolean;
        /** @description Exclude postal marketing blocks. Countries: SE. */
        exclude_marketing_optout?: boolean;
        /** @description Exclude telephone marketing blocks. Countries: SE. */
        exclude_phone_optout?: boolean;
        /** @description Employees (SCB size class). 0 = unknown, never treated as zero employees. Countries: SE. */
        employees_band?: number[];
        /** @description Turnover (SCB class). Countries: SE. */
        turnover_band?: number[];
        /** @description Annual revenue. Countries: EE, NO, LV. */
        annual_revenue_min?: number;
        /** @description Annual revenue. Countries: EE, NO, LV. */
        annual_revenue_max?: number;
        /** @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV. */
        annual_net_profit_min?: number;
        /** @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV. */
        annual_net_profit_max?: number;
        /** @description Annual equity. Countries: EE, NO, LV. */
        annual_equity_min?: number;
        /** @description Annual equity. Countries: EE, NO, LV. */
        annual_equity_max?: number;
        /** @description Annual total assets. Countries: EE, NO, LV. */
        annual_total_assets_min?: number;
        /** @description Annual total assets. Countries: EE, NO, LV. */
        annual_total_assets_max?: number;
        /** @description Last quarter turnover (EUR). Countries: EE, LV, LT. */
        last_quarter_turnover_min?: number;
        /** @description Last quarter turnover (EUR). Countries: EE, LV, LT. */
        last_quarter_turnover_max?: number;
        /** @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT. */
        last_4_quarters_turnover_sum_min?: number;
        /** @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT. */
        last_4_quarters_turnover_sum_max?: number;
        /** @description Employees, latest period. Countries: EE, LV, LT, NO. */
        last_quarter_employees_min?: number;
        /** @description Employees, latest period. Countries: EE, LV, LT, NO. */
        last_quarter_employees_max?: number;
        /** @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT. */
        last_quarter_turnover_growth_pct_min?: number;
        /** @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT. */
        last_quarter_turnover_growth_pct_max?: number;
        /** @description Person (board member / representative). Partial, case- and accent-insensitive match on names of publicly registered people. Countries: EE, LV, NO, FI, PL. */
        person_name?: string;
        /** @description Annual report filed. KRS entities: true = a financial statement was filed for the latest closed year. Countries: PL. */
        annual_report_filed?: boolean;
        /** @description Annual report audited. Countries: PL. */
        annual_report_audited?: boolean;
        /** @description Has a workplace in kommun. SCB kommun codes; finds companies with an active workplace there. Countries: SE. */
        se_workplace_kommun?: string[];
        /** @description Only companies added or changed in a snapshot published on or after this day (YYYY-MM-DD); a day before the kept change history is a 422 naming the oldest date available */
        updated_since?: string;
        /** @description Page number, from 1 */
        page?: number;
        /** @description Rows per page, 1-500 */
        page_size?: number;
        /** @description Sort key; ties are broken by registrikood so paging is stable */
        sort_by?:
          | 'registrikood'
          | 'registration_code'
          | 'arinimi'
          | 'company_name'
          | 'esmaregistreerimise_kpv'
          | 'registered_date'
          | 'kapital'
          | 'share_capital'
          | 'annual_revenue'
          | 'last_quarter_turnover'
          | 'last_quarter_employees_number'
          | 'last_quarter_employees'
          | 'last_4_quarters_turnover_sum';
        sort_dir?: 'asc' | 'desc';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of matching companies with the usage meta of the charge */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              items: components['schemas']['CompanyRow'][];
              page: number;
              page_size: number;
              /** @description All companies matching */
              total: number;
              sort_by: string;
              sort_dir: string;
            } & {
              [key: string]: unknown;
            };
            meta: components['schemas']['UsageMeta'];
          };
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Insufficient wallet credits; nothing was run */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getCompany: {
    parameters: {
      query: {
        country: components['schemas']['CountryInput'];
      };
      header?: never;
      path: {
        /** @description Registration code in the country’s own format */
        registrikood: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The company in full with the usage meta of the charge */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['CompanyDetail'];
            meta: components['schemas']['UsageMeta'];
          };
        };
      };
      /** @description Malformed registration code, or a country without a location tree */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Insufficient wallet credits; nothing was run */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No company with that code in the country; nothing charged */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getCompanyHistory: {
    parameters: {
      query: {
        country: components['schemas']['CountryInput'];
      };
      header?: never;
      path: {
        /** @description Registration code in the country’s own format */
        registrikood: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The company's time series with the usage meta of the charge */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['HistoryData'];
            meta: components['schemas']['UsageMeta'];
          };
        };
      };
      /** @description Malformed registration code, or a country without a location tree */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Insufficient wallet credits; nothing was run */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No company with that code in the country; nothing charged */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getCompanyWorkplaces: {
    parameters: {
      query: {
        /** @description `SE`: Sweden is the only country with workplaces */
        country: 'SE';
      };
      header?: never;
      path: {
        /** @description Registration code in the country’s own format */
        registrikood: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The company's active workplaces, main first, with the usage meta of the charge */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              registrikood: string;
              workplaces: components['schemas']['Workplace'][];
              /** @description Attribution: consumers passing the data on must name this source */
              source: string;
            } & {
              [key: string]: unknown;
            };
            meta: components['schemas']['UsageMeta'];
          };
        };
      };
      /** @description Malformed registration code, or a country without a location tree */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Insufficient wallet credits; nothing was run */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No company with that code in the country; nothing charged */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listChanges: {
    parameters: {
      query: {
        country: components['schemas']['CountryInput'];
        /** @description First day (YYYY-MM-DD) of the changes wanted: changes recorded on or after it */
        since?: string;
        /** @description A snapshot id (`snapshot_id` of an earlier item): the changes recorded by later snapshots */
        since_snapshot?: string;
        /** @description Page number, from 1 */
        page?: number;
        /** @description Rows per page, 1-500 */
        page_size?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of changes with the usage meta of the charge */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              items: components['schemas']['ChangeItem'][];
              page: number;
              page_size: number;
              /** @description All changes from the starting point on */
              total: number;
            };
            meta: components['schemas']['UsageMeta'];
          };
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Insufficient wallet credits; nothing was run */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  exportCompanies: {
    parameters: {
      query: {
        country: components['schemas']['CountryInput'];
        /** @description Company name contains. Case- and accent-insensitive partial match; several values match any of them. Countries: all countries. */
        company_name?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `company_name`.
         */
        arinimi?: string[];
        /** @description Registration code. Exact registration code. Countries: all countries. */
        registration_code?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registration_code`.
         */
        registrikood?: string;
        /** @description Activity codes. Leaf codes from /activities; a company matches when any of its activity codes is sent. Countries: all countries. */
        industry_codes?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `industry_codes`.
         */
        emtak_codes?: string[];
        /** @description Legal form. Countries: all countries. */
        legal_form?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `legal_form`.
         */
        oiguslik_vorm?: string[];
        /** @description Status. Omitted: active (R) only. `__all__`: every status. Countries: all countries. */
        status?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `status`.
         */
        staatus?: string[];
        /** @description Share capital. Countries: EE, LV, NO, PL. */
        share_capital_min?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_min`.
         */
        kapital_min?: number;
        /** @description Share capital. Countries: EE, LV, NO, PL. */
        share_capital_max?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_max`.
         */
        kapital_max?: number;
        /** @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries. */
        registered_from?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_from`.
         */
        esmaregistreerimise_from?: string;
        /** @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries. */
        registered_to?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_to`.
         */
        esmaregistreerimise_to?: string;
        /** @description Location (free text). Case- and accent-insensitive partial match on municipality, county and address. Countries: NO, SE. */
        location?: string;
        /** @description Location. Send a node's `codes` array (repeat the parameter); a parent code alone matches only rows tagged with exactly that code. Countries: EE, LV, FI, PL. */
        ehak_kood?: string[];
        /** @description Location. Send a node's `locations` array (repeat the parameter); the node's `kood` does not match. Countries: LT. */
        lt_locations?: string[];
        /** @description VAT-registered. Countries: all countries. */
        vat_active?: boolean;
        /** @description Has e-mail. Countries: all countries. */
        has_email?: boolean;
        /** @description Has website. Countries: all countries. */
        has_website?: boolean;
        /** @description Has phone. Countries: all countries. */
        has_phone?: boolean;
        /** @description Has any contact. Countries: all countries. */
        has_contact?: boolean;
        /** @description Has registered domain. Registry-sourced domains, separate from websites. Countries: EE, FI. */
        has_domain?: boolean;
        /** @description Tax debt. true: on the public tax-debtor list; false: not on it. Countries: EE. */
        has_tax_debt?: boolean;
        /** @description Exclude postal marketing blocks. Countries: SE. */
        exclude_marketing_optout?: boolean;
        /** @description Exclude telephone marketing blocks. Countries: SE. */
        exclude_phone_optout?: boolean;
        /** @description Employees (SCB size class). 0 = unknown, never treated as zero employees. Countries: SE. */
        employees_band?: number[];
        /** @description Turnover (SCB class). Countries: SE. */
        turnover_band?: number[];
        /** @description Annual revenue. Countries: EE, NO, LV. */
        annual_revenue_min?: number;
        /** @description Annual revenue. Countries: EE, NO, LV. */
        annual_revenue_max?: number;
        /** @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV. */
        annual_net_profit_min?: number;
        /** @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV. */
        annual_net_profit_max?: number;
        /** @description Annual equity. Countries: EE, NO, LV. */
        annual_equity_min?: number;
        /** @description Annual equity. Countries: EE, NO, LV. */
        annual_equity_max?: number;
        /** @description Annual total assets. Countries: EE, NO, LV. */
        annual_total_assets_min?: number;
        /** @description Annual total assets. Countries: EE, NO, LV. */
        annual_total_assets_max?: number;
        /** @description Last quarter turnover (EUR). Countries: EE, LV, LT. */
        last_quarter_turnover_min?: number;
        /** @description Last quarter turnover (EUR). Countries: EE, LV, LT. */
        last_quarter_turnover_max?: number;
        /** @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT. */
        last_4_quarters_turnover_sum_min?: number;
        /** @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT. */
        last_4_quarters_turnover_sum_max?: number;
        /** @description Employees, latest period. Countries: EE, LV, LT, NO. */
        last_quarter_employees_min?: number;
        /** @description Employees, latest period. Countries: EE, LV, LT, NO. */
        last_quarter_employees_max?: number;
        /** @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT. */
        last_quarter_turnover_growth_pct_min?: number;
        /** @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT. */
        last_quarter_turnover_growth_pct_max?: number;
        /** @description Person (board member / representative). Partial, case- and accent-insensitive match on names of publicly registered people. Countries: EE, LV, NO, FI, PL. */
        person_name?: string;
        /** @description Annual report filed. KRS entities: true = a financial statement was filed for the latest closed year. Countries: PL. */
        annual_report_filed?: boolean;
        /** @description Annual report audited. Countries: PL. */
        annual_report_audited?: boolean;
        /** @description Has a workplace in kommun. SCB kommun codes; finds companies with an active workplace there. Countries: SE. */
        se_workplace_kommun?: string[];
        /** @description Only companies added or changed in a snapshot published on or after this day (YYYY-MM-DD); a day before the kept change history is a 422 naming the oldest date available */
        updated_since?: string;
        /** @description Sort key; ties are broken by registrikood so paging is stable */
        sort_by?:
          | 'registrikood'
          | 'registration_code'
          | 'arinimi'
          | 'company_name'
          | 'esmaregistreerimise_kpv'
          | 'registered_date'
          | 'kapital'
          | 'share_capital'
          | 'annual_revenue'
          | 'last_quarter_turnover'
          | 'last_quarter_employees_number'
          | 'last_quarter_employees'
          | 'last_4_quarters_turnover_sum';
        sort_dir?: 'asc' | 'desc';
        /** @description `csv` (RFC 4180, header row), `ndjson` (one JSON object a line) or `parquet` */
        format: 'csv' | 'ndjson' | 'parquet';
        /** @description The most rows to export (default 100000; the largest accepted is the server's REGDATA_EXPORT_MAX_ROWS, 1,000,000 unless configured). The reserve is min(matching rows, max_rows) x the row price */
        max_rows?: number;
        /** @description Download link only: the id of the API key the link was issued to (never the key itself) */
        key_id?: string;
        /** @description Download link only: when the link stops working, in seconds since 1970-01-01 UTC */
        expires?: string;
        /** @description Download link only: the signature over every other parameter. With key_id, expires and signature no Authorization header is sent; a changed, added or removed parameter, or an expired link, is a 403 */
        signature?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The rows, streamed (chunked); the usage meta follows the body */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/csv': string;
          'application/x-ndjson': string;
          'application/vnd.apache.parquet': string;
        };
      };
      /** @description Both an Authorization header and a download link were sent */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Insufficient wallet credits; nothing was run */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A download link that was changed, has expired, or whose key was revoked; nothing run or charged */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  estimateCost: {
    parameters: {
      query: {
        /** @description The operation to price */
        operation: 'search' | 'export' | 'changes' | 'detail' | 'history' | 'workplaces';
        country: components['schemas']['CountryInput'];
        /** @description detail, history, workplaces: the registration code (the path parameter of the call) */
        registrikood?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The estimate */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            country: components['schemas']['Country'];
            /** @enum {string} */
            operation: 'search' | 'export' | 'changes' | 'detail' | 'history' | 'workplaces';
            /** @description The rows the call would reserve (its own reserve rule) */
            rows: number;
            /** @description The country's row price in credits */
            unit_price: number;
            /** @description What the call would reserve: rows x unit_price, or 0 when a waiver applies */
            credits_needed: number;
            /** @description Credits available now */
            credit_balance: number;
            waived: boolean;
            /** @description Why the call would be free, or null */
            waiver: ('admin' | 'unlimited' | 'subscription' | 'trial') | null;
            /** @description Whether the balance covers credits_needed now (false: the call would answer 402) */
            would_succeed: boolean;
          };
        };
      };
      /** @description Malformed registration code, or a country without a location tree */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Invalid or unknown parameter (unsupported country, misspelt filter, out-of-bounds value); nothing run or charged */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ValidationError'];
        };
      };
      /** @description Rate limit exceeded; slow down and retry */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Data backend temporarily unavailable; safe to retry; nothing charged */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}

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
  '/api/v1/data/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The account's watchlist events after a cursor (paged; each event charged once)
     * @description Oldest first. Send the last `id` you have as `after` (or `next_after` of the previous page). Reserves page_size events at the country row price and charges each event the account was never charged for; a page read again, or an event a webhook delivered, is free. A cursor older than the kept events (30 days) is a 422 naming the oldest event kept.
     */
    get: operations['listEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/watchlists': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's watchlists (free) */
    get: operations['listWatchlists'];
    put?: never;
    /**
     * Watch companies or a saved search of one country (free)
     * @description Send `companies` (registration codes) or `search` (the filters of /count as JSON). Every publish then makes an event for each watched company it adds, removes or changes, and for each company that enters or leaves a saved search; events cost the row price once (GET /api/v1/data/events).
     */
    post: operations['createWatchlist'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/watchlists/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One watchlist with its companies (free) */
    get: operations['getWatchlist'];
    put?: never;
    post?: never;
    /** Stop watching: the watchlist and its companies are deleted (free) */
    delete: operations['deleteWatchlist'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/watchlists/{id}/companies': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Add companies to a list (free; those already on it stay once) */
    post: operations['addWatchlistCompanies'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/watchlists/{id}/companies/{registrikood}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Take a company off a list (free) */
    delete: operations['removeWatchlistCompany'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's webhook endpoints (free) */
    get: operations['listWebhookEndpoints'];
    put?: never;
    /**
     * Receive watchlist events at a URL, signed per Standard Webhooks (free)
     * @description Every event of a publish after this moment is POSTed to the URL with `webhook-id`, `webhook-timestamp` and `webhook-signature` headers. Any 2xx acknowledges it; anything else is retried for about 27 hours. The secret is in this answer only.
     */
    post: operations['createWebhookEndpoint'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/webhooks/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Stop sending to an endpoint; its queued deliveries are dropped, unbilled (free) */
    delete: operations['deleteWebhookEndpoint'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/webhooks/{id}/rotate-secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** A new secret; the previous one also signs for 24 hours (free) */
    post: operations['rotateWebhookSecret'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/webhooks/{id}/enable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Switch an endpoint back on after it was switched off for failing (free) */
    post: operations['enableWebhookEndpoint'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/webhooks/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The delivery log of an endpoint, newest first: state, attempts, answers, credits (free) */
    get: operations['listWebhookDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/webhooks/{id}/deliveries/{delivery}/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send a delivery again now (free; the event is charged once, however often it is sent) */
    post: operations['replayWebhookDelivery'];
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
     * @example EE
     * @enum {string}
     */
    CountryInput: 'EE' | 'LV' | 'LT' | 'NO' | 'FI' | 'PL' | 'SE';
    /**
     * @description ISO 3166-1 alpha-2 code of one of the seven countries
     * @example EE
     * @enum {string}
     */
    Country: 'EE' | 'LV' | 'LT' | 'NO' | 'FI' | 'PL' | 'SE';
    CountryItem: {
      code: components['schemas']['Country'];
      /** @example Näidis OÜ */
      name: string;
      /** @description The day the country's data was published into the live snapshot; null when none is loaded */
      as_of: string | null;
      /**
       * @description Companies for sale in the live snapshot
       * @example 819
       */
      companies: number | null;
    };
    FilterSpec: {
      /** @example industry_codes */
      param?: string | null;
      /** @example share_capital_min */
      param_min?: string | null;
      /** @example share_capital_max */
      param_max?: string | null;
      /** @example registered_from */
      param_from?: string | null;
      /** @example registered_to */
      param_to?: string | null;
      /**
       * @example multi_select
       * @enum {string}
       */
      type: 'text' | 'select' | 'multi_select' | 'boolean' | 'number_range' | 'date_range' | 'tree';
      /** @example Programming */
      label: string;
      /** @example true */
      multi?: boolean | null;
      options?:
        | ({
            /** @example OÜ */
            value: string | number;
            /** @example Programming */
            label: string;
          } & {
            [key: string]: unknown;
          })[]
        | null;
      /** @example /api/v1/data/activities?country=EE */
      options_url?: string | null;
      /** @example Leaf codes from /activities */
      note?: string | null;
    } & {
      [key: string]: unknown;
    };
    TreeNode: {
      /** @example 62011 */
      kood: string;
      /** @example Programming */
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
      /** @example 10000018 */
      registrikood: string;
      /** @example Näidis OÜ */
      arinimi: string | null;
      /** @example OÜ */
      oiguslik_vorm: string | null;
      /** @example Osaühing */
      oiguslik_vorm_tekstina: string | null;
      /** @example R */
      staatus: string | null;
      esmaregistreerimise_kpv: string | null;
      /** @example 0176 */
      ehak_kood: string | null;
      /** @example Tallinn */
      ehak_nimetus: string | null;
      /** @example Tallinn, Harju maakond */
      asukoht: string | null;
      /**
       * @description As the country writes it (`10115`, `LV-1010`, `61-626`, `291 80`); null in LT
       * @example 10115
       */
      postcode: string | null;
      /** @example 125000 */
      last_quarter_turnover: number | null;
      /** @example 12 */
      last_quarter_employees_number: number | null;
      /** @example 480000 */
      last_4_quarters_turnover_sum: number | null;
      /** @example 4.5 */
      last_quarter_turnover_growth_pct: number | null;
      /** @example EE100000019 */
      kmkr_nr: string | null;
      /** @example true */
      vat_active: boolean | null;
      /** @example EE100000019 */
      vat_number: string | null;
      /** @example 2500 EUR */
      kapital: string | null;
      /** @example 510000 */
      annual_revenue: number | null;
      /** @example 42000 */
      annual_net_profit: number | null;
      /** @example 150000 */
      annual_equity: number | null;
      /** @example 300000 */
      annual_total_assets: number | null;
      /** @example 2025 */
      annual_report_year: number | null;
      /** @example false */
      has_tax_debt: boolean | null;
      /** @example 3 */
      se_employees_band: number | null;
      /** @example 4 */
      se_turnover_band: number | null;
      /** @example false */
      marketing_optout: boolean | null;
      /** @example false */
      phone_optout: boolean | null;
      /** @example true */
      annual_report_filed: boolean | null;
      /** @example false */
      annual_report_audited: boolean | null;
    } & {
      [key: string]: unknown;
    };
    UsageMeta: {
      /** @example 50 */
      rows_returned: number | null;
      /** @example 0.5 */
      credits_charged: number;
      /** @example 0.5 */
      credits_reserved: number | null;
      /** @example 99.5 */
      credit_balance: number;
      /**
       * Format: date
       * @description The day the country's data was published into the live snapshot (as the Data-As-Of header)
       * @example 2026-11-02
       */
      data_as_of: string;
      /**
       * @description The snapshot that answered
       * @example 20261102T030000Z
       */
      snapshot_id: string;
    };
    CompanyDetail: {
      /** @example 10000018 */
      registrikood: string;
      /** @example Näidis OÜ */
      arinimi: string | null;
      /** @example OÜ */
      oiguslik_vorm: string | null;
      /** @example Osaühing */
      oiguslik_vorm_tekstina: string | null;
      /** @example R */
      staatus: string | null;
      esmaregistreerimise_kpv: string | null;
      /** @example 0176 */
      ehak_kood: string | null;
      /** @example Tallinn */
      ehak_nimetus: string | null;
      /** @example Tallinn, Harju maakond */
      asukoht: string | null;
      /**
       * @description As the country writes it (`10115`, `LV-1010`, `61-626`, `291 80`); null in LT
       * @example 10115
       */
      postcode: string | null;
      /** @example 125000 */
      last_quarter_turnover: number | null;
      /** @example 12 */
      last_quarter_employees_number: number | null;
      /** @example 480000 */
      last_4_quarters_turnover_sum: number | null;
      /** @example 4.5 */
      last_quarter_turnover_growth_pct: number | null;
      /** @example EE100000019 */
      kmkr_nr: string | null;
      /** @example true */
      vat_active: boolean | null;
      /** @example EE100000019 */
      vat_number: string | null;
      /** @example 2500 EUR */
      kapital: string | null;
      /** @example 510000 */
      annual_revenue: number | null;
      /** @example 42000 */
      annual_net_profit: number | null;
      /** @example 150000 */
      annual_equity: number | null;
      /** @example 300000 */
      annual_total_assets: number | null;
      /** @example 2025 */
      annual_report_year: number | null;
      /** @example false */
      has_tax_debt: boolean | null;
      /** @example 3 */
      se_employees_band: number | null;
      /** @example 4 */
      se_turnover_band: number | null;
      /** @example false */
      marketing_optout: boolean | null;
      /** @example false */
      phone_optout: boolean | null;
      /** @example true */
      annual_report_filed: boolean | null;
      /** @example false */
      annual_report_audited: boolean | null;
      /** @example TAVALINE */
      oigusliku_vormi_alaliik: string | null;
      /** @example Registrisse kantud */
      staatus_tekstina: string | null;
      /**
       * @description The register's own status code before normalisation
       * @example R
       */
      source_status: string | null;
      /** @example Narva mnt 5, Tallinn */
      aadress_text: string | null;
      /**
       * @description Share capital as a number, in kapital_currency
       * @example 2500
       */
      kapital_amount: number | null;
      /** @example EUR */
      kapital_currency: string | null;
      /** @example 123456785 */
      pl_regon: string | null;
      /** @example 1234563218 */
      pl_nip: string | null;
      /** @example false */
      is_sole_trader: boolean | null;
      contacts: ({
        /** @example muutmine */
        liik: string;
        /** @example Juhatuse liikme muutmine */
        sisu: string;
        /** @example Data: e-Business Register (Estonia), CC BY 4.0 */
        source: string | null;
      } & {
        [key: string]: unknown;
      })[];
      registered_domains: string[];
      emtak: ({
        /** @example 62011 */
        kood: string;
        /** @example Programming */
        label?: string | null;
        /** @example true */
        is_main?: boolean | null;
      } & {
        [key: string]: unknown;
      })[];
      people: ({
        /** @example Näidis OÜ */
        nimi: string;
        /** @example J */
        isiku_tyyp?: string | null;
        /** @example JUHL */
        roll?: string | null;
        /** @example Juhatuse liige */
        roll_tekstina?: string | null;
        algus_kpv?: string | null;
      } & {
        [key: string]: unknown;
      })[];
      latest_metrics:
        | ({
            /** @example 2026 */
            year?: number | null;
            /** @example 3 */
            quarter?: number | null;
            /** @example 9 */
            month?: number | null;
            /** @example 125000 */
            turnover?: number | null;
            /** @example 12 */
            employees?: number | null;
            turnover_period?:
              | ({
                  /** @example 2026 */
                  year?: number | null;
                  /** @example 3 */
                  quarter?: number | null;
                  /** @example 9 */
                  month?: number | null;
                  as_of?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            employees_period?:
              | ({
                  /** @example 2026 */
                  year?: number | null;
                  /** @example 3 */
                  quarter?: number | null;
                  /** @example 9 */
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
      se_register:
        | ({
            export_import?:
              | ({
                  /** @example EE */
                  code?: string | null;
                  /** @example Programming */
                  label?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            owner_category?:
              | ({
                  /** @example EE */
                  code?: string | null;
                  /** @example Programming */
                  label?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            sme_class?:
              | ({
                  /** @example EE */
                  code?: string | null;
                  /** @example Programming */
                  label?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            listing?:
              | ({
                  /** @example EE */
                  code?: string | null;
                  /** @example Programming */
                  label?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            turnover_class?:
              | ({
                  /** @example EE */
                  code?: string | null;
                  /** @example Programming */
                  label?: string | null;
                } & {
                  [key: string]: unknown;
                })
              | null;
            activity_start_date?: string | null;
            trade_names?: string[] | null;
            /** @example Data: e-Business Register (Estonia), CC BY 4.0 */
            source?: string | null;
          } & {
            [key: string]: unknown;
          })
        | null;
    } & {
      [key: string]: unknown;
    };
    HistoryPeriod: {
      /** @example 2026-Q3 */
      period: string;
      /**
       * @example quarterly
       * @enum {string}
       */
      granularity: 'monthly' | 'quarterly' | 'annual' | 'year_to_date' | 'snapshot';
      /** @example 2026 */
      year: number;
      /** @example 3 */
      quarter: number;
      /** @example 9 */
      month: number;
      /** @example 125000 */
      turnover?: number | null;
      /** @example 12 */
      employees?: number | null;
      /** @example 15000 */
      state_taxes?: number | null;
      /** @example 9000 */
      labour_taxes?: number | null;
      as_of?: string | null;
    } & {
      [key: string]: unknown;
    };
    HistoryData: {
      /** @example 10000018 */
      registrikood: string;
      /** @example Näidis OÜ */
      arinimi: string | null;
      /** @example EE */
      country: string;
      /**
       * @description quarterly, monthly, annual, snapshot, none, or mixed when rows differ
       * @example quarterly
       */
      granularity: string;
      periods: components['schemas']['HistoryPeriod'][];
    } & {
      [key: string]: unknown;
    };
    Workplace: {
      /** @example 12345678 */
      cfar_nr: number;
      /** @example Näidis OÜ */
      name: string;
      /** @example true */
      is_main: boolean;
      /** @example Storgatan 1 */
      visit_address?: string | null;
      /** @example 11122 */
      visit_postcode?: string | null;
      /** @example Stockholm */
      visit_town?: string | null;
      /** @example Box 1 */
      postal_address?: string | null;
      /** @example 11122 */
      postal_code?: string | null;
      /** @example Stockholm */
      postal_town?: string | null;
      /** @example 0180 */
      kommun_code: string;
      /** @example Stockholm */
      kommun_name?: string | null;
      activity_codes: string[];
      /** @example 3 */
      employees_band_code: number;
      /** @example +372 5555 5555 */
      phone?: string | null;
      /** @example info@example.ee */
      email?: string | null;
      /** @example 6580822 */
      sweref99tm_n?: number | null;
      /** @example 674032 */
      sweref99tm_e?: number | null;
      /** @example false */
      marketing_optout: boolean;
      /** @example false */
      phone_optout: boolean;
    } & {
      [key: string]: unknown;
    };
    Error: {
      /** @example no company with that code in the country; nothing charged */
      detail: string;
    };
    ValidationIssue: {
      /** @description Where: ["query", name] or ["path", name] */
      loc: (string | number)[];
      /**
       * @description The parameter name as sent
       * @example industry_codes
       */
      param: string;
      /** @example filter `employees_band` is not available for country EE */
      msg: string;
      /**
       * @description Machine-readable kind, e.g. unknown_parameter, too_big, filter_not_available
       * @example multi_select
       */
      type: string;
    };
    ValidationError: {
      detail: components['schemas']['ValidationIssue'][];
    };
    FieldChange: {
      /**
       * @description An API field of the company
       * @example arinimi
       */
      field: string;
      /** @description Its value before, as the API writes it (null when it had none) */
      before: unknown;
      /** @description Its value after, as the API writes it (null when it has none) */
      after: unknown;
    };
    ChangeItem: {
      /** @example 10000018 */
      registrikood: string;
      /**
       * @example changed
       * @enum {string}
       */
      change: 'added' | 'removed' | 'changed';
      /** @description For `changed`: the API fields whose value changed; empty for `added` and `removed` */
      fields: string[];
      /**
       * @description The snapshot whose publish recorded the change
       * @example 20261102T030000Z
       */
      snapshot_id: string;
      /**
       * Format: date
       * @description The day that snapshot was published
       * @example 2026-11-02
       */
      as_of: string;
      /** @description For `changed`: each changed field with its value before and after; empty for `added` and `removed`; null for changes recorded before the snapshot contract 1.4.0 kept values */
      diff: components['schemas']['FieldChange'][] | null;
    };
    Watchlist: {
      /** @example wl_3q2PZ1x0aB9cD8eF */
      id: string;
      /** @example Suppliers */
      name: string;
      country: components['schemas']['Country'];
      /**
       * @description `companies`: a list; `search`: a saved search
       * @example companies
       * @enum {string}
       */
      kind: 'companies' | 'search';
      /** @description The saved search; null for a list */
      search: {
        [key: string]: unknown;
      } | null;
      /**
       * @description Companies on the list; 0 for a saved search
       * @example 819
       */
      companies: number;
      /** @example 2026-11-27T10:15:00.000Z */
      created_at: string;
    };
    WatchlistEvent: {
      /**
       * @description Stable: the same event always has this id (use it to drop repeats)
       * @example 20261127T030000Z.EE.3f9a0c1d2b4e5f60
       */
      id: string;
      country: components['schemas']['Country'];
      /** @example 10000018 */
      registrikood: string;
      /** @description What the publish did to the company; null when only a saved search it is in changed */
      change: ('added' | 'removed' | 'changed') | null;
      fields: string[];
      /** @description For `changed`: each field before and after, as in /changes */
      diff: components['schemas']['FieldChange'][];
      /** @description Every watchlist of the account the company is in */
      watchlists: {
        /** @example wl_3q2PZ1x0aB9cD8eF */
        id: string;
        /**
         * @description `member`: on the list or in the search before and after; `entered`/`left`: a saved search
         * @example member
         * @enum {string}
         */
        membership: 'member' | 'entered' | 'left';
      }[];
      /** @example 20261102T030000Z */
      snapshot_id: string;
      /**
       * Format: date
       * @example 2026-11-02
       */
      as_of: string;
    };
    WebhookEndpoint: {
      /** @example we_3q2PZ1x0aB9cD8eF */
      id: string;
      /** @example https://hooks.example.com/regdata */
      url: string;
      /** @example 2026-11-27T10:15:00.000Z */
      created_at: string;
      /**
       * @description Null while it receives events; when it was switched off after a day of failures
       * @example null
       */
      disabled_at: string | null;
      /** @example null */
      disabled_reason: string | null;
    };
    WebhookDelivery: {
      /** @example 42 */
      id: number;
      /** @example 20261127T030000Z.EE.3f9a0c1d2b4e5f60 */
      event_id: string;
      country: components['schemas']['Country'];
      /**
       * @description `waiting`: held until the balance covers it; `failed`: every attempt failed
       * @example pending
       * @enum {string}
       */
      state: 'pending' | 'sending' | 'waiting' | 'delivered' | 'failed' | 'expired';
      /** @example 1 */
      attempts: number;
      /**
       * @description When it is tried next
       * @example null
       */
      next_at: string | null;
      /**
       * @description HTTP status of the last answer
       * @example 200
       */
      last_status: number | null;
      /** @example null */
      last_error: string | null;
      /**
       * @description Credits charged for it (an event costs once)
       * @example 0.05
       */
      charged: number;
      /** @example 2026-11-27T03:00:05.000Z */
      created_at: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: {
    /** @description The day the live snapshot's data for the answer's country was published (ISO date); on every answer about one country */
    DataAsOf: string;
    /** @description Rate-limit state of the key (draft-ietf-httpapi-ratelimit-headers): `r` requests left in the burst, `t` seconds until it is full again. Absent for keys that are not rate-limited (admin). */
    RateLimit: string;
    /** @description The rate-limit policy of the key: a burst of `q` requests refilled over `w` seconds. Absent for keys that are not rate-limited (admin). */
    RateLimitPolicy: string;
    /** @description Seconds to wait before retrying */
    RetryAfter: number;
  };
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
            /**
             * @example ok
             * @enum {string}
             */
            status: 'ok' | 'unavailable';
            /** @example 20261102T030000Z */
            snapshot_id?: string | null;
            countries?: {
              [key: string]: {
                /** @example 2026-11-02T03:00:00Z */
                generated_at: string;
                /** @example 3600 */
                age_seconds: number;
                /** @example 819 */
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
            /**
             * @example ok
             * @enum {string}
             */
            status: 'ok' | 'unavailable';
            /** @example 20261102T030000Z */
            snapshot_id?: string | null;
            countries?: {
              [key: string]: {
                /** @example 2026-11-02T03:00:00Z */
                generated_at: string;
                /** @example 3600 */
                age_seconds: number;
                /** @example 819 */
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
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
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
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @example EE */
            country: string;
            /**
             * @example EMTAK
             * @enum {string}
             */
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
        country: components['schemas']['CountryInput'];
        /**
         * @description Label language: `en` (default) or the country's own language where the classifier has labels
         * @example en
         */
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
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
        country: components['schemas']['CountryInput'];
        /**
         * @description Case-insensitive name search: matching nodes flat, at most 100, instead of the tree
         * @example Tallinn
         */
        query?: string;
        /**
         * @description Prunes the tree below this depth; 1 = top level only
         * @example 2
         */
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
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
        country: components['schemas']['CountryInput'];
        /**
         * @description Company name contains. Case- and accent-insensitive partial match; several values match any of them. Countries: all countries.
         * @example [
         *       "Näidis"
         *     ]
         */
        company_name?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `company_name`.
         * @example [
         *       "Näidis OÜ"
         *     ]
         */
        arinimi?: string[];
        /**
         * @description Registration code. Exact registration code. Countries: all countries.
         * @example 10000018
         */
        registration_code?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registration_code`.
         * @example 10000018
         */
        registrikood?: string;
        /**
         * @description Activity codes. Leaf codes from /activities; a company matches when any of its activity codes is sent. Countries: all countries.
         * @example [
         *       "62011"
         *     ]
         */
        industry_codes?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `industry_codes`.
         * @example [
         *       "62011"
         *     ]
         */
        emtak_codes?: string[];
        /**
         * @description Legal form. Countries: all countries.
         * @example [
         *       "OÜ"
         *     ]
         */
        legal_form?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `legal_form`.
         * @example [
         *       "OÜ"
         *     ]
         */
        oiguslik_vorm?: string[];
        /**
         * @description Status. Omitted: active (R) only. `__all__`: every status. Countries: all countries.
         * @example [
         *       "R"
         *     ]
         */
        status?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `status`.
         * @example [
         *       "R"
         *     ]
         */
        staatus?: string[];
        /**
         * @description Share capital. Countries: EE, LV, NO, PL.
         * @example 2500
         */
        share_capital_min?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_min`.
         * @example 2500
         */
        kapital_min?: number;
        /**
         * @description Share capital. Countries: EE, LV, NO, PL.
         * @example 100000
         */
        share_capital_max?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_max`.
         * @example 100000
         */
        kapital_max?: number;
        /**
         * @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries.
         * @example 2020-01-01
         */
        registered_from?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_from`.
         * @example 2020-01-01
         */
        esmaregistreerimise_from?: string;
        /**
         * @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries.
         * @example 2024-12-31
         */
        registered_to?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_to`.
         * @example 2024-12-31
         */
        esmaregistreerimise_to?: string;
        /**
         * @description Location (free text). Case- and accent-insensitive partial match on municipality, county and address. Countries: NO, SE.
         * @example 0176
         */
        location?: string;
        /**
         * @description Location. Send a node's `codes` array (repeat the parameter); a parent code alone matches only rows tagged with exactly that code. Countries: EE, LV, FI, PL.
         * @example [
         *       "0176"
         *     ]
         */
        ehak_kood?: string[];
        /**
         * @description Location. Send a node's `locations` array (repeat the parameter); the node's `kood` does not match. Countries: LT.
         * @example [
         *       "13"
         *     ]
         */
        lt_locations?: string[];
        /**
         * @description Postcode starts with. Prefix of the digits: `101` matches 10115; `291 8`, `61-6`, `LV-10` mean 2918, 616, 10. Any of several. Countries: EE, LV, NO, FI, PL, SE.
         * @example [
         *       "10115"
         *     ]
         */
        postcode?: string[];
        /**
         * @description VAT-registered. Countries: all countries.
         * @example true
         */
        vat_active?: boolean;
        /**
         * @description Has e-mail. Countries: all countries.
         * @example true
         */
        has_email?: boolean;
        /**
         * @description Has website. Countries: all countries.
         * @example true
         */
        has_website?: boolean;
        /**
         * @description Has phone. Countries: all countries.
         * @example true
         */
        has_phone?: boolean;
        /**
         * @description Has any contact. Countries: all countries.
         * @example true
         */
        has_contact?: boolean;
        /**
         * @description Has registered domain. Registry-sourced domains, separate from websites. Countries: EE, FI.
         * @example true
         */
        has_domain?: boolean;
        /**
         * @description Tax debt. true: on the public tax-debtor list; false: not on it. Countries: EE.
         * @example false
         */
        has_tax_debt?: boolean;
        /**
         * @description Exclude postal marketing blocks. Countries: SE.
         * @example true
         */
        exclude_marketing_optout?: boolean;
        /**
         * @description Exclude telephone marketing blocks. Countries: SE.
         * @example true
         */
        exclude_phone_optout?: boolean;
        /**
         * @description Employees (SCB size class). 0 = unknown, never treated as zero employees. Countries: SE.
         * @example [
         *       3
         *     ]
         */
        employees_band?: number[];
        /**
         * @description Turnover (SCB class). Countries: SE.
         * @example [
         *       4
         *     ]
         */
        turnover_band?: number[];
        /**
         * @description Annual revenue. Countries: EE, NO, LV.
         * @example 100000
         */
        annual_revenue_min?: number;
        /**
         * @description Annual revenue. Countries: EE, NO, LV.
         * @example 5000000
         */
        annual_revenue_max?: number;
        /**
         * @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV.
         * @example 0
         */
        annual_net_profit_min?: number;
        /**
         * @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV.
         * @example 1000000
         */
        annual_net_profit_max?: number;
        /**
         * @description Annual equity. Countries: EE, NO, LV.
         * @example 0
         */
        annual_equity_min?: number;
        /**
         * @description Annual equity. Countries: EE, NO, LV.
         * @example 1000000
         */
        annual_equity_max?: number;
        /**
         * @description Annual total assets. Countries: EE, NO, LV.
         * @example 100000
         */
        annual_total_assets_min?: number;
        /**
         * @description Annual total assets. Countries: EE, NO, LV.
         * @example 10000000
         */
        annual_total_assets_max?: number;
        /**
         * @description Last quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 10000
         */
        last_quarter_turnover_min?: number;
        /**
         * @description Last quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 1000000
         */
        last_quarter_turnover_max?: number;
        /**
         * @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 100000
         */
        last_4_quarters_turnover_sum_min?: number;
        /**
         * @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 5000000
         */
        last_4_quarters_turnover_sum_max?: number;
        /**
         * @description Employees, latest period. Countries: EE, LV, LT, NO.
         * @example 5
         */
        last_quarter_employees_min?: number;
        /**
         * @description Employees, latest period. Countries: EE, LV, LT, NO.
         * @example 50
         */
        last_quarter_employees_max?: number;
        /**
         * @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT.
         * @example 0
         */
        last_quarter_turnover_growth_pct_min?: number;
        /**
         * @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT.
         * @example 50
         */
        last_quarter_turnover_growth_pct_max?: number;
        /**
         * @description Person (board member / representative). Partial, case- and accent-insensitive match on names of publicly registered people. Countries: EE, LV, NO, FI, PL.
         * @example Mari Maasikas
         */
        person_name?: string;
        /**
         * @description Annual report filed. KRS entities: true = a financial statement was filed for the latest closed year. Countries: PL.
         * @example true
         */
        annual_report_filed?: boolean;
        /**
         * @description Annual report audited. Countries: PL.
         * @example false
         */
        annual_report_audited?: boolean;
        /**
         * @description Has a workplace in kommun. SCB kommun codes; finds companies with an active workplace there. Countries: SE.
         * @example [
         *       "0180"
         *     ]
         */
        se_workplace_kommun?: string[];
        /**
         * @description Only companies added or changed in a snapshot published on or after this day (YYYY-MM-DD); a day before the kept change history is a 422 naming the oldest date available
         * @example 2026-11-01
         */
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
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @example EE */
            country: string;
            /** @example 819 */
            count: number | null;
            /** @example exact */
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
        country: components['schemas']['CountryInput'];
        /**
         * @description Company name contains. Case- and accent-insensitive partial match; several values match any of them. Countries: all countries.
         * @example [
         *       "Näidis"
         *     ]
         */
        company_name?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `company_name`.
         * @example [
         *       "Näidis OÜ"
         *     ]
         */
        arinimi?: string[];
        /**
         * @description Registration code. Exact registration code. Countries: all countries.
         * @example 10000018
         */
        registration_code?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registration_code`.
         * @example 10000018
         */
        registrikood?: string;
        /**
         * @description Activity codes. Leaf codes from /activities; a company matches when any of its activity codes is sent. Countries: all countries.
         * @example [
         *       "62011"
         *     ]
         */
        industry_codes?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `industry_codes`.
         * @example [
         *       "62011"
         *     ]
         */
        emtak_codes?: string[];
        /**
         * @description Legal form. Countries: all countries.
         * @example [
         *       "OÜ"
         *     ]
         */
        legal_form?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `legal_form`.
         * @example [
         *       "OÜ"
         *     ]
         */
        oiguslik_vorm?: string[];
        /**
         * @description Status. Omitted: active (R) only. `__all__`: every status. Countries: all countries.
         * @example [
         *       "R"
         *     ]
         */
        status?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `status`.
         * @example [
         *       "R"
         *     ]
         */
        staatus?: string[];
        /**
         * @description Share capital. Countries: EE, LV, NO, PL.
         * @example 2500
         */
        share_capital_min?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_min`.
         * @example 2500
         */
        kapital_min?: number;
        /**
         * @description Share capital. Countries: EE, LV, NO, PL.
         * @example 100000
         */
        share_capital_max?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_max`.
         * @example 100000
         */
        kapital_max?: number;
        /**
         * @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries.
         * @example 2020-01-01
         */
        registered_from?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_from`.
         * @example 2020-01-01
         */
        esmaregistreerimise_from?: string;
        /**
         * @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries.
         * @example 2024-12-31
         */
        registered_to?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_to`.
         * @example 2024-12-31
         */
        esmaregistreerimise_to?: string;
        /**
         * @description Location (free text). Case- and accent-insensitive partial match on municipality, county and address. Countries: NO, SE.
         * @example 0176
         */
        location?: string;
        /**
         * @description Location. Send a node's `codes` array (repeat the parameter); a parent code alone matches only rows tagged with exactly that code. Countries: EE, LV, FI, PL.
         * @example [
         *       "0176"
         *     ]
         */
        ehak_kood?: string[];
        /**
         * @description Location. Send a node's `locations` array (repeat the parameter); the node's `kood` does not match. Countries: LT.
         * @example [
         *       "13"
         *     ]
         */
        lt_locations?: string[];
        /**
         * @description Postcode starts with. Prefix of the digits: `101` matches 10115; `291 8`, `61-6`, `LV-10` mean 2918, 616, 10. Any of several. Countries: EE, LV, NO, FI, PL, SE.
         * @example [
         *       "10115"
         *     ]
         */
        postcode?: string[];
        /**
         * @description VAT-registered. Countries: all countries.
         * @example true
         */
        vat_active?: boolean;
        /**
         * @description Has e-mail. Countries: all countries.
         * @example true
         */
        has_email?: boolean;
        /**
         * @description Has website. Countries: all countries.
         * @example true
         */
        has_website?: boolean;
        /**
         * @description Has phone. Countries: all countries.
         * @example true
         */
        has_phone?: boolean;
        /**
         * @description Has any contact. Countries: all countries.
         * @example true
         */
        has_contact?: boolean;
        /**
         * @description Has registered domain. Registry-sourced domains, separate from websites. Countries: EE, FI.
         * @example true
         */
        has_domain?: boolean;
        /**
         * @description Tax debt. true: on the public tax-debtor list; false: not on it. Countries: EE.
         * @example false
         */
        has_tax_debt?: boolean;
        /**
         * @description Exclude postal marketing blocks. Countries: SE.
         * @example true
         */
        exclude_marketing_optout?: boolean;
        /**
         * @description Exclude telephone marketing blocks. Countries: SE.
         * @example true
         */
        exclude_phone_optout?: boolean;
        /**
         * @description Employees (SCB size class). 0 = unknown, never treated as zero employees. Countries: SE.
         * @example [
         *       3
         *     ]
         */
        employees_band?: number[];
        /**
         * @description Turnover (SCB class). Countries: SE.
         * @example [
         *       4
         *     ]
         */
        turnover_band?: number[];
        /**
         * @description Annual revenue. Countries: EE, NO, LV.
         * @example 100000
         */
        annual_revenue_min?: number;
        /**
         * @description Annual revenue. Countries: EE, NO, LV.
         * @example 5000000
         */
        annual_revenue_max?: number;
        /**
         * @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV.
         * @example 0
         */
        annual_net_profit_min?: number;
        /**
         * @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV.
         * @example 1000000
         */
        annual_net_profit_max?: number;
        /**
         * @description Annual equity. Countries: EE, NO, LV.
         * @example 0
         */
        annual_equity_min?: number;
        /**
         * @description Annual equity. Countries: EE, NO, LV.
         * @example 1000000
         */
        annual_equity_max?: number;
        /**
         * @description Annual total assets. Countries: EE, NO, LV.
         * @example 100000
         */
        annual_total_assets_min?: number;
        /**
         * @description Annual total assets. Countries: EE, NO, LV.
         * @example 10000000
         */
        annual_total_assets_max?: number;
        /**
         * @description Last quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 10000
         */
        last_quarter_turnover_min?: number;
        /**
         * @description Last quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 1000000
         */
        last_quarter_turnover_max?: number;
        /**
         * @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 100000
         */
        last_4_quarters_turnover_sum_min?: number;
        /**
         * @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 5000000
         */
        last_4_quarters_turnover_sum_max?: number;
        /**
         * @description Employees, latest period. Countries: EE, LV, LT, NO.
         * @example 5
         */
        last_quarter_employees_min?: number;
        /**
         * @description Employees, latest period. Countries: EE, LV, LT, NO.
         * @example 50
         */
        last_quarter_employees_max?: number;
        /**
         * @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT.
         * @example 0
         */
        last_quarter_turnover_growth_pct_min?: number;
        /**
         * @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT.
         * @example 50
         */
        last_quarter_turnover_growth_pct_max?: number;
        /**
         * @description Person (board member / representative). Partial, case- and accent-insensitive match on names of publicly registered people. Countries: EE, LV, NO, FI, PL.
         * @example Mari Maasikas
         */
        person_name?: string;
        /**
         * @description Annual report filed. KRS entities: true = a financial statement was filed for the latest closed year. Countries: PL.
         * @example true
         */
        annual_report_filed?: boolean;
        /**
         * @description Annual report audited. Countries: PL.
         * @example false
         */
        annual_report_audited?: boolean;
        /**
         * @description Has a workplace in kommun. SCB kommun codes; finds companies with an active workplace there. Countries: SE.
         * @example [
         *       "0180"
         *     ]
         */
        se_workplace_kommun?: string[];
        /**
         * @description Only companies added or changed in a snapshot published on or after this day (YYYY-MM-DD); a day before the kept change history is a 422 naming the oldest date available
         * @example 2026-11-01
         */
        updated_since?: string;
        /**
         * @description Page number, from 1
         * @example 1
         */
        page?: number;
        /**
         * @description Rows per page, 1-500
         * @example 50
         */
        page_size?: number;
        /**
         * @description Sort key; ties are broken by registrikood so paging is stable
         * @example registration_code
         */
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
        /**
         * @description Sort direction: ascending (default) or descending
         * @example asc
         */
        sort_dir?: 'asc' | 'desc';
      };
      header?: {
        /**
         * @description Makes a metered call safe to retry: a repeat with the same key and parameters within 24 hours returns the first answer and charges nothing again; the same key with other parameters is a 422. 1-255 printable ASCII characters, e.g. a UUID.
         * @example c3b0a7e2-1f5d-4c1a-9f0e-2b6d8e4a7c11
         */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of matching companies with the usage meta of the charge */
      200: {
        headers: {
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              items: components['schemas']['CompanyRow'][];
              /** @example 1 */
              page: number;
              /** @example 50 */
              page_size: number;
              /**
               * @description All companies matching
               * @example 819
               */
              total: number;
              /** @example registration_code */
              sort_by: string;
              /** @example asc */
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
        country: components['schemas']['CountryInput'];
      };
      header?: {
        /**
         * @description Makes a metered call safe to retry: a repeat with the same key and parameters within 24 hours returns the first answer and charges nothing again; the same key with other parameters is a 422. 1-255 printable ASCII characters, e.g. a UUID.
         * @example c3b0a7e2-1f5d-4c1a-9f0e-2b6d8e4a7c11
         */
        'Idempotency-Key'?: string;
      };
      path: {
        /**
         * @description Registration code in the country’s own format
         * @example 10000018
         */
        registrikood: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The company in full with the usage meta of the charge */
      200: {
        headers: {
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
        country: components['schemas']['CountryInput'];
      };
      header?: {
        /**
         * @description Makes a metered call safe to retry: a repeat with the same key and parameters within 24 hours returns the first answer and charges nothing again; the same key with other parameters is a 422. 1-255 printable ASCII characters, e.g. a UUID.
         * @example c3b0a7e2-1f5d-4c1a-9f0e-2b6d8e4a7c11
         */
        'Idempotency-Key'?: string;
      };
      path: {
        /**
         * @description Registration code in the country’s own format
         * @example 10000018
         */
        registrikood: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The company's time series with the usage meta of the charge */
      200: {
        headers: {
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
        /**
         * @description `SE`: Sweden is the only country with workplaces
         * @example SE
         */
        country: 'SE';
      };
      header?: {
        /**
         * @description Makes a metered call safe to retry: a repeat with the same key and parameters within 24 hours returns the first answer and charges nothing again; the same key with other parameters is a 422. 1-255 printable ASCII characters, e.g. a UUID.
         * @example c3b0a7e2-1f5d-4c1a-9f0e-2b6d8e4a7c11
         */
        'Idempotency-Key'?: string;
      };
      path: {
        /**
         * @description Registration code in the country’s own format
         * @example 10000018
         */
        registrikood: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The company's active workplaces, main first, with the usage meta of the charge */
      200: {
        headers: {
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              /** @example 10000018 */
              registrikood: string;
              workplaces: components['schemas']['Workplace'][];
              /**
               * @description Attribution: consumers passing the data on must name this source
               * @example Data: e-Business Register (Estonia), CC BY 4.0
               */
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
        country: components['schemas']['CountryInput'];
        /**
         * @description First day (YYYY-MM-DD) of the changes wanted: changes recorded on or after it
         * @example 2026-11-01
         */
        since?: string;
        /**
         * @description A snapshot id (`snapshot_id` of an earlier item): the changes recorded by later snapshots
         * @example 20261102T030000Z
         */
        since_snapshot?: string;
        /**
         * @description Page number, from 1
         * @example 1
         */
        page?: number;
        /**
         * @description Rows per page, 1-500
         * @example 50
         */
        page_size?: number;
      };
      header?: {
        /**
         * @description Makes a metered call safe to retry: a repeat with the same key and parameters within 24 hours returns the first answer and charges nothing again; the same key with other parameters is a 422. 1-255 printable ASCII characters, e.g. a UUID.
         * @example c3b0a7e2-1f5d-4c1a-9f0e-2b6d8e4a7c11
         */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of changes with the usage meta of the charge */
      200: {
        headers: {
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              items: components['schemas']['ChangeItem'][];
              /** @example 1 */
              page: number;
              /** @example 50 */
              page_size: number;
              /**
               * @description All changes from the starting point on
               * @example 819
               */
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
      /** @description The service is busy (the query engine is full); retry after the seconds in Retry-After; nothing charged */
      503: {
        headers: {
          'Retry-After': components['headers']['RetryAfter'];
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
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
        country: components['schemas']['CountryInput'];
        /**
         * @description Company name contains. Case- and accent-insensitive partial match; several values match any of them. Countries: all countries.
         * @example [
         *       "Näidis"
         *     ]
         */
        company_name?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `company_name`.
         * @example [
         *       "Näidis OÜ"
         *     ]
         */
        arinimi?: string[];
        /**
         * @description Registration code. Exact registration code. Countries: all countries.
         * @example 10000018
         */
        registration_code?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registration_code`.
         * @example 10000018
         */
        registrikood?: string;
        /**
         * @description Activity codes. Leaf codes from /activities; a company matches when any of its activity codes is sent. Countries: all countries.
         * @example [
         *       "62011"
         *     ]
         */
        industry_codes?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `industry_codes`.
         * @example [
         *       "62011"
         *     ]
         */
        emtak_codes?: string[];
        /**
         * @description Legal form. Countries: all countries.
         * @example [
         *       "OÜ"
         *     ]
         */
        legal_form?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `legal_form`.
         * @example [
         *       "OÜ"
         *     ]
         */
        oiguslik_vorm?: string[];
        /**
         * @description Status. Omitted: active (R) only. `__all__`: every status. Countries: all countries.
         * @example [
         *       "R"
         *     ]
         */
        status?: string[];
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `status`.
         * @example [
         *       "R"
         *     ]
         */
        staatus?: string[];
        /**
         * @description Share capital. Countries: EE, LV, NO, PL.
         * @example 2500
         */
        share_capital_min?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_min`.
         * @example 2500
         */
        kapital_min?: number;
        /**
         * @description Share capital. Countries: EE, LV, NO, PL.
         * @example 100000
         */
        share_capital_max?: number;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `share_capital_max`.
         * @example 100000
         */
        kapital_max?: number;
        /**
         * @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries.
         * @example 2020-01-01
         */
        registered_from?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_from`.
         * @example 2020-01-01
         */
        esmaregistreerimise_from?: string;
        /**
         * @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries.
         * @example 2024-12-31
         */
        registered_to?: string;
        /**
         * @deprecated
         * @description Deprecated Estonian-named alias of `registered_to`.
         * @example 2024-12-31
         */
        esmaregistreerimise_to?: string;
        /**
         * @description Location (free text). Case- and accent-insensitive partial match on municipality, county and address. Countries: NO, SE.
         * @example 0176
         */
        location?: string;
        /**
         * @description Location. Send a node's `codes` array (repeat the parameter); a parent code alone matches only rows tagged with exactly that code. Countries: EE, LV, FI, PL.
         * @example [
         *       "0176"
         *     ]
         */
        ehak_kood?: string[];
        /**
         * @description Location. Send a node's `locations` array (repeat the parameter); the node's `kood` does not match. Countries: LT.
         * @example [
         *       "13"
         *     ]
         */
        lt_locations?: string[];
        /**
         * @description Postcode starts with. Prefix of the digits: `101` matches 10115; `291 8`, `61-6`, `LV-10` mean 2918, 616, 10. Any of several. Countries: EE, LV, NO, FI, PL, SE.
         * @example [
         *       "10115"
         *     ]
         */
        postcode?: string[];
        /**
         * @description VAT-registered. Countries: all countries.
         * @example true
         */
        vat_active?: boolean;
        /**
         * @description Has e-mail. Countries: all countries.
         * @example true
         */
        has_email?: boolean;
        /**
         * @description Has website. Countries: all countries.
         * @example true
         */
        has_website?: boolean;
        /**
         * @description Has phone. Countries: all countries.
         * @example true
         */
        has_phone?: boolean;
        /**
         * @description Has any contact. Countries: all countries.
         * @example true
         */
        has_contact?: boolean;
        /**
         * @description Has registered domain. Registry-sourced domains, separate from websites. Countries: EE, FI.
         * @example true
         */
        has_domain?: boolean;
        /**
         * @description Tax debt. true: on the public tax-debtor list; false: not on it. Countries: EE.
         * @example false
         */
        has_tax_debt?: boolean;
        /**
         * @description Exclude postal marketing blocks. Countries: SE.
         * @example true
         */
        exclude_marketing_optout?: boolean;
        /**
         * @description Exclude telephone marketing blocks. Countries: SE.
         * @example true
         */
        exclude_phone_optout?: boolean;
        /**
         * @description Employees (SCB size class). 0 = unknown, never treated as zero employees. Countries: SE.
         * @example [
         *       3
         *     ]
         */
        employees_band?: number[];
        /**
         * @description Turnover (SCB class). Countries: SE.
         * @example [
         *       4
         *     ]
         */
        turnover_band?: number[];
        /**
         * @description Annual revenue. Countries: EE, NO, LV.
         * @example 100000
         */
        annual_revenue_min?: number;
        /**
         * @description Annual revenue. Countries: EE, NO, LV.
         * @example 5000000
         */
        annual_revenue_max?: number;
        /**
         * @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV.
         * @example 0
         */
        annual_net_profit_min?: number;
        /**
         * @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV.
         * @example 1000000
         */
        annual_net_profit_max?: number;
        /**
         * @description Annual equity. Countries: EE, NO, LV.
         * @example 0
         */
        annual_equity_min?: number;
        /**
         * @description Annual equity. Countries: EE, NO, LV.
         * @example 1000000
         */
        annual_equity_max?: number;
        /**
         * @description Annual total assets. Countries: EE, NO, LV.
         * @example 100000
         */
        annual_total_assets_min?: number;
        /**
         * @description Annual total assets. Countries: EE, NO, LV.
         * @example 10000000
         */
        annual_total_assets_max?: number;
        /**
         * @description Last quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 10000
         */
        last_quarter_turnover_min?: number;
        /**
         * @description Last quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 1000000
         */
        last_quarter_turnover_max?: number;
        /**
         * @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 100000
         */
        last_4_quarters_turnover_sum_min?: number;
        /**
         * @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT.
         * @example 5000000
         */
        last_4_quarters_turnover_sum_max?: number;
        /**
         * @description Employees, latest period. Countries: EE, LV, LT, NO.
         * @example 5
         */
        last_quarter_employees_min?: number;
        /**
         * @description Employees, latest period. Countries: EE, LV, LT, NO.
         * @example 50
         */
        last_quarter_employees_max?: number;
        /**
         * @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT.
         * @example 0
         */
        last_quarter_turnover_growth_pct_min?: number;
        /**
         * @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT.
         * @example 50
         */
        last_quarter_turnover_growth_pct_max?: number;
        /**
         * @description Person (board member / representative). Partial, case- and accent-insensitive match on names of publicly registered people. Countries: EE, LV, NO, FI, PL.
         * @example Mari Maasikas
         */
        person_name?: string;
        /**
         * @description Annual report filed. KRS entities: true = a financial statement was filed for the latest closed year. Countries: PL.
         * @example true
         */
        annual_report_filed?: boolean;
        /**
         * @description Annual report audited. Countries: PL.
         * @example false
         */
        annual_report_audited?: boolean;
        /**
         * @description Has a workplace in kommun. SCB kommun codes; finds companies with an active workplace there. Countries: SE.
         * @example [
         *       "0180"
         *     ]
         */
        se_workplace_kommun?: string[];
        /**
         * @description Only companies added or changed in a snapshot published on or after this day (YYYY-MM-DD); a day before the kept change history is a 422 naming the oldest date available
         * @example 2026-11-01
         */
        updated_since?: string;
        /**
         * @description Sort key; ties are broken by registrikood so paging is stable
         * @example registration_code
         */
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
        /**
         * @description Sort direction: ascending (default) or descending
         * @example asc
         */
        sort_dir?: 'asc' | 'desc';
        /**
         * @description `csv` (RFC 4180, header row), `ndjson` (one JSON object a line) or `parquet`
         * @example csv
         */
        format: 'csv' | 'ndjson' | 'parquet';
        /**
         * @description The most rows to export (default 100000; the largest accepted is the server's REGDATA_EXPORT_MAX_ROWS, 1,000,000 unless configured). The reserve is min(matching rows, max_rows) x the row price
         * @example 10000
         */
        max_rows?: number;
        /**
         * @description Download link only: the id of the API key the link was issued to (never the key itself)
         * @example k_3f9a1c
         */
        key_id?: string;
        /**
         * @description Download link only: when the link stops working, in seconds since 1970-01-01 UTC
         * @example 1795000000
         */
        expires?: string;
        /**
         * @description Download link only: the signature over every other parameter. With key_id, expires and signature no Authorization header is sent; a changed, added or removed parameter, or an expired link, is a 403
         * @example c2lnbmF0dXJl
         */
        signature?: string;
      };
      header?: {
        /**
         * @description Makes a metered call safe to retry: a repeat with the same key and parameters within 24 hours returns the first answer and charges nothing again; the same key with other parameters is a 422. 1-255 printable ASCII characters, e.g. a UUID.
         * @example c3b0a7e2-1f5d-4c1a-9f0e-2b6d8e4a7c11
         */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The rows, streamed (chunked); the usage meta follows the body */
      200: {
        headers: {
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
      /** @description The service is busy (the query engine is full); retry after the seconds in Retry-After; nothing charged */
      503: {
        headers: {
          'Retry-After': components['headers']['RetryAfter'];
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
        /**
         * @description The operation to price
         * @example search
         */
        operation: 'search' | 'export' | 'changes' | 'detail' | 'history' | 'workplaces';
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
        country: components['schemas']['CountryInput'];
        /**
         * @description detail, history, workplaces: the registration code (the path parameter of the call)
         * @example 10000018
         */
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
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            country: components['schemas']['Country'];
            /**
             * @example search
             * @enum {string}
             */
            operation: 'search' | 'export' | 'changes' | 'detail' | 'history' | 'workplaces';
            /**
             * @description The rows the call would reserve (its own reserve rule)
             * @example 50
             */
            rows: number;
            /**
             * @description The country's row price in credits
             * @example 0.01
             */
            unit_price: number;
            /**
             * @description What the call would reserve: rows x unit_price, or 0 when a waiver applies
             * @example 0.5
             */
            credits_needed: number;
            /**
             * @description Credits available now
             * @example 99.5
             */
            credit_balance: number;
            /** @example false */
            waived: boolean;
            /** @description Why the call would be free, or null */
            waiver: ('test' | 'admin' | 'unlimited' | 'subscription' | 'trial') | null;
            /**
             * @description Whether the balance covers credits_needed now (false: the call would answer 402)
             * @example true
             */
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
  listEvents: {
    parameters: {
      query: {
        /**
         * @description ISO 3166-1 alpha-2 code of one of the seven countries
         * @example EE
         */
        country: components['schemas']['CountryInput'];
        /**
         * @description The `id` of the last event you have: the events after it. Absent: from the oldest kept
         * @example 20261127T030000Z.EE.3f9a0c1d2b4e5f60
         */
        after?: string;
        /**
         * @description Rows per page, 1-500
         * @example 50
         */
        page_size?: number;
      };
      header?: {
        /**
         * @description Makes a metered call safe to retry: a repeat with the same key and parameters within 24 hours returns the first answer and charges nothing again; the same key with other parameters is a 422. 1-255 printable ASCII characters, e.g. a UUID.
         * @example c3b0a7e2-1f5d-4c1a-9f0e-2b6d8e4a7c11
         */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of events with the usage meta of the charge */
      200: {
        headers: {
          'Data-As-Of': components['headers']['DataAsOf'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              items: components['schemas']['WatchlistEvent'][];
              /**
               * @description Send as `after` for the next page; null when this page is empty (keep your cursor)
               * @example 20261127T030000Z.EE.3f9a0c1d2b4e5f60
               */
              next_after: string | null;
              /**
               * @description The oldest event kept for this account, or null
               * @example 20261101T030000Z.EE.0b1c2d3e4f5a6b7c
               */
              oldest: string | null;
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
          'Retry-After': components['headers']['RetryAfter'];
          RateLimit: components['headers']['RateLimit'];
          'RateLimit-Policy': components['headers']['RateLimitPolicy'];
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
      /** @description The service is busy (the query engine is full); retry after the seconds in Retry-After; nothing charged */
      503: {
        headers: {
          'Retry-After': components['headers']['RetryAfter'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listWatchlists: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Every watchlist of the account */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              items: components['schemas']['Watchlist'][];
            };
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
  createWatchlist: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description A name for the dashboard and the events
           * @example Näidis OÜ
           */
          name: string;
          country: components['schemas']['CountryInput'];
          /** @description Registration codes of the country (`registrikood` as the API writes it) */
          companies?: string[];
          /** @description A saved search: the filters of /count as JSON (the names of `list_filters`), without `country` */
          search?: {
            /** @description Company name contains. Case- and accent-insensitive partial match; several values match any of them. Countries: all countries. */
            company_name?: string[];
            /**
             * @description Registration code. Exact registration code. Countries: all countries.
             * @example 10000018
             */
            registration_code?: string;
            /** @description Activity codes. Leaf codes from /activities; a company matches when any of its activity codes is sent. Countries: all countries. */
            industry_codes?: string[];
            /** @description Legal form. Countries: all countries. */
            legal_form?: string[];
            /** @description Status. Omitted: active (R) only. `__all__`: every status. Countries: all countries. */
            status?: string[];
            /**
             * @description Share capital. Countries: EE, LV, NO, PL.
             * @example 2500
             */
            share_capital_min?: number;
            /**
             * @description Share capital. Countries: EE, LV, NO, PL.
             * @example 100000
             */
            share_capital_max?: number;
            /**
             * Format: date
             * @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries.
             * @example 2020-01-01
             */
            registered_from?: string;
            /**
             * Format: date
             * @description First registration date. YYYY-MM-DD, inclusive. Countries: all countries.
             * @example 2024-12-31
             */
            registered_to?: string;
            /**
             * @description Location (free text). Case- and accent-insensitive partial match on municipality, county and address. Countries: NO, SE.
             * @example 0176
             */
            location?: string;
            /** @description Location. Send a node's `codes` array (repeat the parameter); a parent code alone matches only rows tagged with exactly that code. Countries: EE, LV, FI, PL. */
            ehak_kood?: string[];
            /** @description Location. Send a node's `locations` array (repeat the parameter); the node's `kood` does not match. Countries: LT. */
            lt_locations?: string[];
            /** @description Postcode starts with. Prefix of the digits: `101` matches 10115; `291 8`, `61-6`, `LV-10` mean 2918, 616, 10. Any of several. Countries: EE, LV, NO, FI, PL, SE. */
            postcode?: string[];
            /**
             * @description VAT-registered. Countries: all countries.
             * @example true
             */
            vat_active?: boolean;
            /**
             * @description Has e-mail. Countries: all countries.
             * @example true
             */
            has_email?: boolean;
            /**
             * @description Has website. Countries: all countries.
             * @example true
             */
            has_website?: boolean;
            /**
             * @description Has phone. Countries: all countries.
             * @example true
             */
            has_phone?: boolean;
            /**
             * @description Has any contact. Countries: all countries.
             * @example true
             */
            has_contact?: boolean;
            /**
             * @description Has registered domain. Registry-sourced domains, separate from websites. Countries: EE, FI.
             * @example true
             */
            has_domain?: boolean;
            /**
             * @description Tax debt. true: on the public tax-debtor list; false: not on it. Countries: EE.
             * @example false
             */
            has_tax_debt?: boolean;
            /**
             * @description Exclude postal marketing blocks. Countries: SE.
             * @example true
             */
            exclude_marketing_optout?: boolean;
            /**
             * @description Exclude telephone marketing blocks. Countries: SE.
             * @example true
             */
            exclude_phone_optout?: boolean;
            /** @description Employees (SCB size class). 0 = unknown, never treated as zero employees. Countries: SE. */
            employees_band?: number[];
            /** @description Turnover (SCB class). Countries: SE. */
            turnover_band?: number[];
            /**
             * @description Annual revenue. Countries: EE, NO, LV.
             * @example 100000
             */
            annual_revenue_min?: number;
            /**
             * @description Annual revenue. Countries: EE, NO, LV.
             * @example 5000000
             */
            annual_revenue_max?: number;
            /**
             * @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV.
             * @example 0
             */
            annual_net_profit_min?: number;
            /**
             * @description Annual net profit. Negative = loss; min 0 = profitable only. Countries: EE, NO, LV.
             * @example 1000000
             */
            annual_net_profit_max?: number;
            /**
             * @description Annual equity. Countries: EE, NO, LV.
             * @example 0
             */
            annual_equity_min?: number;
            /**
             * @description Annual equity. Countries: EE, NO, LV.
             * @example 1000000
             */
            annual_equity_max?: number;
            /**
             * @description Annual total assets. Countries: EE, NO, LV.
             * @example 100000
             */
            annual_total_assets_min?: number;
            /**
             * @description Annual total assets. Countries: EE, NO, LV.
             * @example 10000000
             */
            annual_total_assets_max?: number;
            /**
             * @description Last quarter turnover (EUR). Countries: EE, LV, LT.
             * @example 10000
             */
            last_quarter_turnover_min?: number;
            /**
             * @description Last quarter turnover (EUR). Countries: EE, LV, LT.
             * @example 1000000
             */
            last_quarter_turnover_max?: number;
            /**
             * @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT.
             * @example 100000
             */
            last_4_quarters_turnover_sum_min?: number;
            /**
             * @description Trailing four-quarter turnover (EUR). Countries: EE, LV, LT.
             * @example 5000000
             */
            last_4_quarters_turnover_sum_max?: number;
            /**
             * @description Employees, latest period. Countries: EE, LV, LT, NO.
             * @example 5
             */
            last_quarter_employees_min?: number;
            /**
             * @description Employees, latest period. Countries: EE, LV, LT, NO.
             * @example 50
             */
            last_quarter_employees_max?: number;
            /**
             * @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT.
             * @example 0
             */
            last_quarter_turnover_growth_pct_min?: number;
            /**
             * @description Quarter-over-quarter turnover growth (%). Countries: EE, LV, LT.
             * @example 50
             */
            last_quarter_turnover_growth_pct_max?: number;
            /**
             * @description Person (board member / representative). Partial, case- and accent-insensitive match on names of publicly registered people. Countries: EE, LV, NO, FI, PL.
             * @example Mari Maasikas
             */
            person_name?: string;
            /**
             * @description Annual report filed. KRS entities: true = a financial statement was filed for the latest closed year. Countries: PL.
             * @example true
             */
            annual_report_filed?: boolean;
            /**
             * @description Annual report audited. Countries: PL.
             * @example false
             */
            annual_report_audited?: boolean;
            /** @description Has a workplace in kommun. SCB kommun codes; finds companies with an active workplace there. Countries: SE. */
            se_workplace_kommun?: string[];
            /**
             * Format: date
             * @description Only companies added or changed in a snapshot published on or after this day (YYYY-MM-DD); a day before the kept change history is a 422 naming the oldest date available
             * @example 2026-11-01
             */
            updated_since?: string;
          };
        };
      };
    };
    responses: {
      /** @description The new watchlist */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              /** @example wl_3q2PZ1x0aB9cD8eF */
              id: string;
              /** @example Suppliers */
              name: string;
              country: components['schemas']['Country'];
              /**
               * @description `companies`: a list; `search`: a saved search
               * @example companies
               * @enum {string}
               */
              kind: 'companies' | 'search';
              /** @description The saved search; null for a list */
              search: {
                [key: string]: unknown;
              } | null;
              /**
               * @description Companies on the list; 0 for a saved search
               * @example 819
               */
              companies: number;
              /** @example 2026-11-27T10:15:00.000Z */
              created_at: string;
              /** @description The companies of a list, in code order; empty for a search */
              registrikoodid: string[];
            };
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
  getWatchlist: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The watchlist (`id` of a watchlist of this account)
         * @example wl_3q2PZ1x0aB9cD8eF
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The watchlist */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              /** @example wl_3q2PZ1x0aB9cD8eF */
              id: string;
              /** @example Suppliers */
              name: string;
              country: components['schemas']['Country'];
              /**
               * @description `companies`: a list; `search`: a saved search
               * @example companies
               * @enum {string}
               */
              kind: 'companies' | 'search';
              /** @description The saved search; null for a list */
              search: {
                [key: string]: unknown;
              } | null;
              /**
               * @description Companies on the list; 0 for a saved search
               * @example 819
               */
              companies: number;
              /** @example 2026-11-27T10:15:00.000Z */
              created_at: string;
              /** @description The companies of a list, in code order; empty for a search */
              registrikoodid: string[];
            };
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
      /** @description No watchlist with that id in this account */
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
    };
  };
  deleteWatchlist: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The watchlist (`id` of a watchlist of this account)
         * @example wl_3q2PZ1x0aB9cD8eF
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
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
      /** @description No watchlist with that id in this account */
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
    };
  };
  addWatchlistCompanies: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The watchlist (`id` of a watchlist of this account)
         * @example wl_3q2PZ1x0aB9cD8eF
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description Registration codes of the country (`registrikood` as the API writes it) */
          companies: string[];
        };
      };
    };
    responses: {
      /** @description The watchlist */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              /** @example wl_3q2PZ1x0aB9cD8eF */
              id: string;
              /** @example Suppliers */
              name: string;
              country: components['schemas']['Country'];
              /**
               * @description `companies`: a list; `search`: a saved search
               * @example companies
               * @enum {string}
               */
              kind: 'companies' | 'search';
              /** @description The saved search; null for a list */
              search: {
                [key: string]: unknown;
              } | null;
              /**
               * @description Companies on the list; 0 for a saved search
               * @example 819
               */
              companies: number;
              /** @example 2026-11-27T10:15:00.000Z */
              created_at: string;
              /** @description The companies of a list, in code order; empty for a search */
              registrikoodid: string[];
            };
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
      /** @description No watchlist with that id in this account */
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
    };
  };
  removeWatchlistCompany: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The watchlist (`id` of a watchlist of this account)
         * @example wl_3q2PZ1x0aB9cD8eF
         */
        id: string;
        /**
         * @description The company to take off the list
         * @example 10000018
         */
        registrikood: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description How many were removed (0 when it was not on the list) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              /**
               * @description How many of the codes were on the list
               * @example 1
               */
              removed: number;
            };
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
      /** @description No watchlist with that id in this account */
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
    };
  };
  listWebhookEndpoints: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Every endpoint */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              items: components['schemas']['WebhookEndpoint'][];
            };
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
  createWebhookEndpoint: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description Where events are POSTed: an https URL on a public address
           * @example https://hooks.example.com/regdata
           */
          url: string;
        };
      };
    };
    responses: {
      /** @description The endpoint and its secret (shown once) */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              /** @example we_3q2PZ1x0aB9cD8eF */
              id: string;
              /** @example https://hooks.example.com/regdata */
              url: string;
              /** @example 2026-11-27T10:15:00.000Z */
              created_at: string;
              /**
               * @description Null while it receives events; when it was switched off after a day of failures
               * @example null
               */
              disabled_at: string | null;
              /** @example null */
              disabled_reason: string | null;
              /**
               * @description The signing secret (Standard Webhooks `whsec_...`): shown this once, never again
               * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
               */
              secret: string;
            };
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
  deleteWebhookEndpoint: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The endpoint (`id` of a webhook endpoint of this account)
         * @example we_3q2PZ1x0aB9cD8eF
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
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
      /** @description No webhook endpoint (or delivery) with that id in this account */
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
    };
  };
  rotateWebhookSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The endpoint (`id` of a webhook endpoint of this account)
         * @example we_3q2PZ1x0aB9cD8eF
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The endpoint and its new secret (shown once) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              /** @example we_3q2PZ1x0aB9cD8eF */
              id: string;
              /** @example https://hooks.example.com/regdata */
              url: string;
              /** @example 2026-11-27T10:15:00.000Z */
              created_at: string;
              /**
               * @description Null while it receives events; when it was switched off after a day of failures
               * @example null
               */
              disabled_at: string | null;
              /** @example null */
              disabled_reason: string | null;
              /**
               * @description The signing secret (Standard Webhooks `whsec_...`): shown this once, never again
               * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
               */
              secret: string;
            };
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
      /** @description No webhook endpoint (or delivery) with that id in this account */
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
    };
  };
  enableWebhookEndpoint: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The endpoint (`id` of a webhook endpoint of this account)
         * @example we_3q2PZ1x0aB9cD8eF
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The endpoint */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['WebhookEndpoint'];
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
      /** @description No webhook endpoint (or delivery) with that id in this account */
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
    };
  };
  listWebhookDeliveries: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The endpoint (`id` of a webhook endpoint of this account)
         * @example we_3q2PZ1x0aB9cD8eF
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The last 100 deliveries */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              items: components['schemas']['WebhookDelivery'][];
            };
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
      /** @description No webhook endpoint (or delivery) with that id in this account */
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
    };
  };
  replayWebhookDelivery: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The endpoint (`id` of a webhook endpoint of this account)
         * @example we_3q2PZ1x0aB9cD8eF
         */
        id: string;
        /**
         * @description The delivery (`id` of an entry of the delivery log)
         * @example 42
         */
        delivery: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Queued again */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              /**
               * @description Queued to be sent again at once
               * @example true
               */
              replayed: boolean;
            };
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
      /** @description No webhook endpoint (or delivery) with that id in this account */
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
    };
  };
}

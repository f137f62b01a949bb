/*
 * Polish code tables the adapter and the writer share. KRS has no status code: the state is derived from
 * the extract's dzial6 entries (matched by stem, since the reference names only the stems "likwid…",
 * "upadl…"; "restruktur…" by analogy, UNCONFIRMED) and REGON's deletion date, and named with the words the
 * snapshot has always used (docs/ingest.md).
 */

export interface PlState {
  staatus: string;
  text: string;
}

/** KRS entities, by precedence: deletion first, then bankruptcy, liquidation, restructuring. */
export const PL_KRS_STATES = {
  WYKRESLONY: { staatus: 'K', text: 'Wykreślony z rejestru' },
  W_UPADLOSCI: { staatus: 'N', text: 'W upadłości' },
  W_LIKWIDACJI: { staatus: 'L', text: 'W likwidacji' },
  W_RESTRUKTURYZACJI: { staatus: 'T', text: 'W restrukturyzacji' },
  AKTYWNY: { staatus: 'R', text: 'Aktywny' },
} as const satisfies Record<string, PlState>;
/** dzial6 key stems → the state they mean. */
export const PL_DZIAL6_STEMS = [
  ['upadl', 'W_UPADLOSCI'],
  ['likwid', 'W_LIKWIDACJI'],
  ['restruktur', 'W_RESTRUKTURYZACJI'],
] as const;

/** REGON units outside KRS: deleted from REGON, suspended (praw_dataZawieszeniaDzialalnosci), active. */
export const PL_REGON_STATES = {
  WYKRESLONY: { staatus: 'K', text: 'Skreślony z rejestru REGON' },
  ZAWIESZONY: { staatus: 'S', text: 'Działalność zawieszona' },
  AKTYWNY: { staatus: 'R', text: 'Aktywny' },
} as const satisfies Record<string, PlState>;

/**
 * CEIDG `status` values (6.3). The v3 enum has five, as independent clients list them (a Kotlin enum
 * [id:47434223597], a TypeScript type [id:63204620960], a pydantic Literal [id:71231988035]);
 * WYLACZNIE_W_FORMIE_SPOLKI is an entrepreneur whose business runs only inside a civil partnership
 * (spółka cywilna; about 3% of the register by one project's count of a CEIDG report [id:70933586578]).
 * The entry stays registered and the business runs, so it is R; its text is the CEIDG report's own wording
 * for it [id:70922759240].
 */
export const PL_CEIDG_STATES: Readonly<Record<string, PlState>> = {
  AKTYWNY: { staatus: 'R', text: 'Aktywny' },
  ZAWIESZONY: { staatus: 'S', text: 'Zawieszony' },
  OCZEKUJE_NA_ROZPOCZECIE_DZIALANOSCI: { staatus: 'S', text: 'Oczekuje na rozpoczęcie działalności' },
  WYLACZNIE_W_FORMIE_SPOLKI: {
    staatus: 'R',
    text: 'Działalność prowadzona wyłącznie w formie spółki cywilnej',
  },
  WYKRESLONY: { staatus: 'K', text: 'Wykreślony' },
};

/** KRS `funkcjaWOrganie` (and prokurenci, partners) → display text; an unknown function is shown as is. */
export const PL_ROLE_TEXT: Readonly<Record<string, string>> = {
  'PREZES ZARZĄDU': 'Prezes Zarządu',
  'WICEPREZES ZARZĄDU': 'Wiceprezes Zarządu',
  'CZŁONEK ZARZĄDU': 'Członek Zarządu',
  PROKURENT: 'Prokurent',
  WSPÓLNIK: 'Wspólnik',
};

/**
 * A phone field (REGON `praw_numerTelefonu`, CEIDG `telefon`) holds one or more numbers separated by `,`;
 * a number written in the mobile grouping (`+48 ddd ddd ddd`) is a MOB contact, any other a TEL.
 */
export const PL_MOBILE_PATTERN = '^\\+48 \\d{3} \\d{3} \\d{3}$';

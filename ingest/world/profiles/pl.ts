import { words } from './words.ts';
import { PL_CEIDG_STATES, PL_KRS_STATES, PL_REGON_STATES, PL_ROLE_TEXT } from '../../official/pl/codes.ts';
import {
  addressTexts,
  capital,
  codedRoles,
  codedStatuses,
  digits,
  legalForms,
  templates,
  tlds,
} from './tables.ts';
import type { CountryProfile } from './types.ts';

/*
 * Poland: KRS (entrepreneurs and associations), REGON (every unit) and CEIDG (sole traders).
 * - `oiguslik_vorm` is GUS's szczególna forma prawna symbol with its GUS text (the 3-digit list of the
 *   REGON BIR reports, `praw_szczegolnaFormaPrawna_Symbol`), as copied in a public REGON client
 *   [id:1997488346]: 117 spółki z ograniczoną odpowiedzialnością, 116 spółki akcyjne, 118 spółki jawne,
 *   120 spółki komandytowe, 121 spółki komandytowo-akcyjne, 115 spółki partnerskie, 148 fundacje,
 *   155 stowarzyszenia, 140 spółdzielnie, 019 spółki cywilne, 085 wspólnoty mieszkaniowe,
 *   055 stowarzyszenia niewpisane do KRS, 429 gminne samorządowe jednostki organizacyjne, 099 osoby
 *   fizyczne prowadzące działalność gospodarczą. Name abbreviations are the ISO 20275 ELF rows for PL.
 * - KRS has no status code. source_status for KRS entities is a derived word (AKTYWNY, W_LIKWIDACJI,
 *   W_UPADLOSCI, W_RESTRUKTURYZACJI, WYKRESLONY) from the dzial4-6 entries and deletion, documented as such;
 *   REGON units use the same words plus ZAWIESZONY (praw_dataZawieszeniaDzialalnosci); CEIDG sole traders
 *   use CEIDG's own `status` values AKTYWNY, ZAWIESZONY, WYKRESLONY (registry-formats.md 6.3) and
 *   OCZEKUJE_NA_ROZPOCZECIE_DZIALANOSCI (remembered from the CEIDG API, not seen in a file).
 * - KRS board functions: KRS `funkcjaWOrganie` ("CZŁONEK ZARZĄDU" is in the real extract of
 *   registry-formats.md 6.1; PREZES/WICEPREZES ZARZĄDU and PROKURENT are the other KRS values).
 * - Codes: KRS number 10 digits zero-padded (issued up to ~0001268296 by 2026-09), REGON 9 digits and NIP
 *   10 digits with their check digits (registration-codes.ts).
 * - Size: ~4.8M REGON units, ~2.5M of them sole traders (brief; registry-formats.md 6.6).
 */

const krsStatuses = codedStatuses(
  PL_KRS_STATES,
  ['AKTYWNY', 0.8],
  ['W_LIKWIDACJI', 0.05],
  ['W_UPADLOSCI', 0.03],
  ['W_RESTRUKTURYZACJI', 0.005],
  ['WYKRESLONY', 0.115],
);
const regonStatuses = codedStatuses(
  PL_REGON_STATES,
  ['AKTYWNY', 0.84],
  ['ZAWIESZONY', 0.06],
  ['WYKRESLONY', 0.1],
);
const ceidgStatuses = codedStatuses(
  PL_CEIDG_STATES,
  ['AKTYWNY', 0.62],
  ['ZAWIESZONY', 0.13],
  ['OCZEKUJE_NA_ROZPOCZECIE_DZIALANOSCI', 0.01],
  ['WYKRESLONY', 0.24],
);

// Share capital minimums: sp. z o.o. 5000 PLN since 2009 (50,000 PLN before), S.A. 100,000 PLN.
const spzooCapital = capital(
  [
    [5000, 0.68],
    [50_000, 0.08],
    [10_000, 0.05],
  ],
  { tailShare: 0.19, tailMedian: 40_000, decimals: 2 },
);
const saCapital = capital(
  [
    [100_000, 0.45],
    [500_000, 0.1],
  ],
  { tailShare: 0.45, tailMedian: 2_000_000, decimals: 2 },
);

const board = codedRoles(
  PL_ROLE_TEXT,
  ['PREZES ZARZĄDU', 0.45],
  ['CZŁONEK ZARZĄDU', 0.35],
  ['WICEPREZES ZARZĄDU', 0.12],
  ['PROKURENT', 0.08],
);
const partners = codedRoles(PL_ROLE_TEXT, ['WSPÓLNIK', 1]);

const lastMale = words(`
Nowak, Kowalski, Wiśniewski, Wójcik, Kowalczyk, Kamiński, Lewandowski, Zieliński, Szymański,
Woźniak, Dąbrowski, Kozłowski, Jankowski, Mazur, Kwiatkowski, Wojciechowski, Krawczyk, Kaczmarek,
Piotrowski, Grabowski, Zając, Pawłowski, Michalski, Król, Wieczorek, Jabłoński, Wróbel, Nowakowski,
Majewski, Olszewski, Stępień, Malinowski, Jaworski, Adamczyk, Dudek, Nowicki, Pająk, Górski, Sikora
`);
// Feminine surnames: the adjectival -ski, -cki and -dzki end in -a (Kowalski, Kowalska); the others do not change.
const feminine = (surname: string): string => surname.replace(/(sk|ck|dzk)i$/, '$1a');

const form = legalForms({ affix: null, vatShare: 0.6, people: 'board', filesAccounts: true });

export const PL: CountryProfile = {
  total: 4_800_000,
  currency: 'PLN',
  eurRate: 4.3,
  operatingShare: 0.72,
  maxEmployees: 40_000,
  families: [
    {
      key: 'krs',
      share: 0.24,
      codeLo: 1,
      codeSpan: 1_268_000,
      maxCodeSpan: 9_999_999_999,
      firstRegistration: '2001-01-01',
      meanAgeYears: 9,
      statuses: krsStatuses,
      contactSources: { email: 'pl_krs', www: 'pl_krs', tel: 'pl_regon', mob: 'pl_regon' },
      forms: [
        form({
          code: '117',
          label: 'spółki z ograniczoną odpowiedzialnością',
          weight: 0.7,
          affix: 'sp. z o.o.',
          capital: spzooCapital,
        }),
        form({
          code: '116',
          label: 'spółki akcyjne',
          weight: 0.012,
          affix: 'S.A.',
          sizeShift: 2,
          vatShare: 0.9,
          capital: saCapital,
        }),
        form({
          code: '118',
          label: 'spółki jawne',
          weight: 0.03,
          affix: 'sp.j.',
          people: 'owner',
          roles: partners,
        }),
        form({
          code: '120',
          label: 'spółki komandytowe',
          weight: 0.035,
          affix: 'sp.k.',
          people: 'owner',
          roles: partners,
        }),
        form({ code: '121', label: 'spółki komandytowo-akcyjne', weight: 0.002, affix: 'S.K.A.' }),
        form({
          code: '115',
          label: 'spółki partnerskie',
          weight: 0.003,
          affix: 'sp.p.',
          people: 'owner',
          roles: partners,
        }),
        form({
          code: '148',
          label: 'fundacje',
          weight: 0.045,
          affix: 'Fundacja',
          affixPosition: 'prefix',
          nameStyle: 'assoc',
          sizeShift: -1,
          vatShare: 0.1,
        }),
        form({
          code: '155',
          label: 'stowarzyszenia',
          weight: 0.155,
          affix: 'Stowarzyszenie',
          affixPosition: 'prefix',
          nameStyle: 'assoc',
          sizeShift: -1.2,
          vatShare: 0.05,
        }),
        form({
          code: '140',
          label: 'spółdzielnie',
          weight: 0.018,
          affix: 'Spółdzielnia',
          affixPosition: 'prefix',
          nameStyle: 'assoc',
          vatShare: 0.5,
        }),
      ],
    },
    {
      key: 'regon',
      share: 0.24,
      codeLo: 0,
      codeSpan: 0,
      firstRegistration: '1992-01-01',
      meanAgeYears: 12,
      statuses: regonStatuses,
      contactSources: { email: 'pl_regon', www: 'pl_regon', tel: 'pl_regon', mob: 'pl_regon' },
      forms: [
        form({
          code: '019',
          label:
            'spółki cywilne prowadzące działalność na podstawie umowy zawartej zgodnie z Kodeksem cywilnym',
          weight: 0.6,
          affix: 's.c.',
          sizeShift: -0.4,
          people: 'none',
          filesAccounts: false,
        }),
        form({
          code: '085',
          label: 'wspólnoty mieszkaniowe',
          weight: 0.25,
          nameStyle: 'housing',
          sizeShift: -1.5,
          vatShare: 0.05,
          people: 'none',
          filesAccounts: false,
        }),
        form({
          code: '055',
          label: 'stowarzyszenia niewpisane do KRS',
          weight: 0.07,
          nameStyle: 'assoc',
          sizeShift: -1.5,
          vatShare: 0.02,
          people: 'none',
          filesAccounts: false,
        }),
        form({
          code: '429',
          label: 'gminne samorządowe jednostki organizacyjne',
          weight: 0.08,
          nameStyle: 'assoc',
          sizeShift: 0.5,
          vatShare: 0.3,
          people: 'none',
          filesAccounts: false,
        }),
      ],
    },
    {
      key: 'ceidg',
      share: 0.52,
      codeLo: 0,
      codeSpan: 0,
      firstRegistration: '1989-01-01',
      meanAgeYears: 10,
      statuses: ceidgStatuses,
      contactSources: { email: 'pl_ceidg', www: 'pl_ceidg', tel: 'pl_ceidg', mob: 'pl_ceidg' },
      forms: [
        form({
          code: '099',
          label: 'osoby fizyczne prowadzące działalność gospodarczą',
          weight: 1,
          nameStyle: 'person',
          soleTrader: true,
          sizeShift: -0.8,
          vatShare: 0.35,
          people: 'none',
          filesAccounts: false,
        }),
      ],
    },
  ],
  defaultRoles: board,
  names: {
    firstMale: words(`
Piotr, Krzysztof, Andrzej, Tomasz, Paweł, Jan, Michał, Marcin, Stanisław, Jakub, Adam, Marek,
Łukasz, Grzegorz, Mateusz, Wojciech, Mariusz, Dariusz, Zbigniew, Jerzy, Maciej, Rafał, Kamil, Robert
`),
    firstFemale: words(`
Anna, Maria, Katarzyna, Małgorzata, Agnieszka, Barbara, Ewa, Krystyna, Elżbieta, Magdalena, Joanna,
Zofia, Aleksandra, Monika, Beata, Danuta, Teresa, Dorota, Jolanta, Justyna, Natalia, Karolina,
Halina, Grażyna
`),
    lastMale,
    lastFemale: lastMale.map(feminine),
    stemHeads: words(`
Pol, Euro, Agro, Bud, Trans, Inter, Eko, Medi, Tech, Stal, Drew, Met, Elektro, Auto, Info, Orzeł,
Wisła, Bałtyk, Tatra, Sokół, Dąb, Bursztyn, Zorza, Mazowsze
`),
    stemTails: words(`
bud, pol, mex, tex, trans, med, soft, plast, stal, kom, gaz, rol, net, dom
`),
    stemJoiner: '',
    business: {
      A: words('Gospodarstwo Rolne, Agro, Ogrodnictwo'),
      B: words('Kruszywa, Żwirownia'),
      C: words('Produkcja, Meble, Stolarstwo, Piekarnia, Zakład Metalowy'),
      D: words('Energia, Ciepło'),
      E: words('Recykling, Ekologia'),
      F: words('Budownictwo, Usługi Budowlane, Usługi Remontowe, Instalacje, Elektro, Dachy'),
      G: words('Handel, Hurtownia, Sklep, Auto Części, Import-Eksport'),
      H: words('Transport, Logistyka, Spedycja, Przewóz Osób'),
      I: words('Gastronomia, Restauracja, Pizzeria, Hotel, Catering'),
      J: words('Software, IT Solutions, Systemy, Media, Studio Graficzne'),
      K: words('Finanse, Kapitał, Inwestycje'),
      L: words('Nieruchomości, Zarządzanie Nieruchomościami, Development'),
      M: words('Doradztwo, Consulting, Biuro Rachunkowe, Kancelaria, Projektowanie, Architekci'),
      N: words('Usługi, Sprzątanie, Wynajem, Ochrona'),
      O: words('Usługi'),
      P: words('Szkolenia, Akademia, Szkoła Językowa, Nauka Jazdy'),
      Q: words('Gabinet, Przychodnia, Stomatologia, Rehabilitacja'),
      R: words('Studio, Sport, Fitness, Muzyka'),
      S: words('Salon Fryzjerski, Kosmetyka, Usługi'),
      T: words('Dom'),
      U: words('Przedstawicielstwo'),
      _: words('Grupa, Holding, Usługi'),
    },
    association: words(`
Klub Sportowy, Ochotnicza Straż Pożarna, Koło Gospodyń Wiejskich, Towarzystwo Przyjaciół,
Uczniowski Klub Sportowy, Stowarzyszenie Mieszkańców, Zespół Szkół, Gminny Ośrodek Kultury
`),
    streets: words(`
ul. Długa, ul. Polna, ul. Leśna, ul. Słoneczna, ul. Krótka, ul. Szkolna, ul. Ogrodowa, ul. Lipowa,
ul. Łąkowa, ul. Kościuszki, ul. Mickiewicza, ul. Sienkiewicza, ul. Piłsudskiego, ul. Kwiatowa,
ul. Kolejowa, ul. Wojska Polskiego, ul. Zielona, ul. Parkowa, al. Jana Pawła II, ul. Przemysłowa
`),
    templates: {
      org: templates({ '{stem}': 0.35, '{last} {biz}': 0.25, '{stem} {biz}': 0.25, '{biz} {town}': 0.15 }),
      person: templates({
        '{first} {last}': 0.35,
        '{biz} {first} {last}': 0.35,
        '{first} {last} {biz}': 0.2,
        '{stem} {first} {last}': 0.1,
      }),
      assoc: templates({ '{assoc} {town}': 0.45, '{stem}': 0.35, '{assoc} {stem}': 0.2 }),
      housing: templates({ 'Wspólnota Mieszkaniowa {street} {nr}': 1 }),
    },
  },
  contacts: {
    published: { email: 0.4, www: 0.18, tel: 0.25, mob: 0.3 },
    mailboxes: ['biuro', 'kontakt', 'info', 'sekretariat'],
    tlds: tlds({ pl: 0.75, 'com.pl': 0.15, eu: 0.1 }),
    mobile: [
      digits('+48 5## ### ###', 0.4),
      digits('+48 6## ### ###', 0.35),
      digits('+48 7## ### ###', 0.25),
    ],
    landline: [digits('+48 22 ### ## ##', 0.3), digits('+48 ## ### ## ##', 0.7)],
  },
  address: addressTexts('{street}, {pc} {town}', 'woj. {county}', digits('##-###')),
  clusters: [
    { names: ['Warszawa'], share: 0.12 },
    { names: ['Kraków'], share: 0.045 },
    { names: ['Wrocław'], share: 0.035 },
    { names: ['Łódź', 'Poznań'], share: 0.055 },
    { names: ['Gdańsk', 'Gdynia', 'Sopot'], share: 0.035 },
  ],
  // The last TERC digit is the unit's kind: 1 urban gmina, 4 town of an urban-rural gmina, 8 Warsaw
  // district, 9 city delegatura; 2 and 5 are rural. Towns hold most companies.
  placeFactor: (leaf) => (/[1489]$/.test(leaf.kood ?? '') ? 5 : 1),
  townLevel: 2,
  townStrip: [],
  countyLevel: 0,
  countyLowerCase: true,
};

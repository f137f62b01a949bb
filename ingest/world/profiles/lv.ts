import { words } from './words.ts';
import { addressTexts, capital, digits, legalForms, roles, fourStates, templates, tlds } from './tables.ts';
import type { CountryProfile } from './types.ts';

/*
 * Latvia: Uzņēmumu reģistrs register.csv.
 * - `type` codes and `type_text` labels: SIA, AS, IK, BDR (Biedrība) as in the real register.csv rows of
 *   registry-formats.md 2.1; KS, PS and the ISO 20275 ELF list rows for LV (Komandītsabiedrība,
 *   Pilnsabiedrība); NOD (Nodibinājums) and ZS (Zemnieku saimniecība) from a public UR type map
 *   ([id:55939427580] lists SIA/AS/IK/PS/KS/FIL/VAS; [id:21506139119] and [id:61455416969] list ZS).
 *   NOD as a `type` code was not seen in a file; it is the abbreviation UR uses for nodibinājums in
 *   register.csv and is marked unconfirmed in docs/world.md.
 * - register.csv has no status code. Terminated rows carry a `terminated` date and the `closed` flag `L`
 *   (meaning unconfirmed); active rows have a blank flag. source_status keeps that flag; liquidation and
 *   insolvency come from the insolvency file, which has no code, so their source_status is null.
 * - Codes: 11 digits, 4… commercial and 5… others as the brief asks. Note: the real sample rows show
 *   associations (BDR) with 4… codes too; the split is a convention here, not a register rule.
 * - Sizes: 485,896 rows, 219,865 active (COLT, registry-formats.md 2.4).
 */

const statuses = fourStates({
  R: [null, 'Reģistrēts'],
  L: [null, 'Likvidācijas process'],
  N: [null, 'Maksātnespējas process'],
  K: ['L', 'Izslēgts no reģistra'],
});

// SIA minimum capital is 2800 EUR (2000 LVL converted); a "small capital" SIA may have 1 EUR.
const siaCapital = capital(
  [
    [2800, 0.55],
    [2846, 0.06],
    [1, 0.08],
    [100, 0.05],
  ],
  { tailShare: 0.26, tailMedian: 15_000, decimals: 2 },
);
const asCapital = capital([[35_000, 0.6]], { tailShare: 0.4, tailMedian: 400_000, decimals: 2 });

const form = legalForms({
  affix: 'code',
  affixPosition: 'quoted',
  vatShare: 0.5,
  people: 'board',
  filesAccounts: true,
});

export const LV: CountryProfile = {
  total: 486_000,
  currency: 'EUR',
  eurRate: 1,
  operatingShare: 0.7,
  maxEmployees: 7_000,
  families: [
    {
      key: 'commercial',
      share: 0.82,
      codePrefix: '4',
      codeLo: 3_000_000,
      codeSpan: 200_000_000,
      firstRegistration: '1991-01-01',
      meanAgeYears: 13,
      statuses: statuses(0.42, 0.03, 0.02),
      forms: [
        form({ code: 'SIA', label: 'Sabiedrība ar ierobežotu atbildību', weight: 0.78, capital: siaCapital }),
        form({
          code: 'AS',
          label: 'Akciju sabiedrība',
          weight: 0.01,
          sizeShift: 1.6,
          vatShare: 0.9,
          capital: asCapital,
        }),
        form({
          code: 'IK',
          label: 'Individuālais komersants',
          weight: 0.12,
          soleTrader: true,
          sizeShift: -0.6,
          vatShare: 0.3,
          people: 'owner',
          roles: [{ code: 'OWNER', label: 'Īpašnieks', weight: 1 }],
        }),
        form({ code: 'ZS', label: 'Zemnieku saimniecība', weight: 0.06, sizeShift: -0.4, vatShare: 0.35 }),
        form({ code: 'PS', label: 'Pilnsabiedrība', weight: 0.015, vatShare: 0.4 }),
        form({ code: 'KS', label: 'Komandītsabiedrība', weight: 0.015, vatShare: 0.4 }),
      ],
    },
    {
      key: 'other',
      share: 0.18,
      codePrefix: '5',
      codeLo: 3_000_000,
      codeSpan: 200_000_000,
      firstRegistration: '1993-01-01',
      meanAgeYears: 12,
      statuses: statuses(0.62, 0.02, 0.003),
      forms: [
        form({
          code: 'BDR',
          label: 'Biedrība',
          weight: 0.88,
          affix: 'Biedrība',
          nameStyle: 'assoc',
          sizeShift: -1,
          vatShare: 0.05,
        }),
        form({
          code: 'NOD',
          label: 'Nodibinājums',
          weight: 0.12,
          affix: 'Nodibinājums',
          nameStyle: 'assoc',
          sizeShift: -0.8,
          vatShare: 0.05,
        }),
      ],
    },
  ],
  defaultRoles: roles(
    ['BOARD_MEMBER', 'Valdes loceklis', 0.8],
    ['CHAIR_OF_BOARD', 'Valdes priekšsēdētājs', 0.15],
    ['PROCURATOR', 'Prokūrists', 0.05],
  ),
  names: {
    firstMale: words(`
Jānis, Andris, Edgars, Māris, Kārlis, Aivars, Artūrs, Roberts, Mārtiņš, Raivis, Guntis, Juris,
Uldis, Valdis, Dainis, Ivars, Ģirts, Raimonds, Normunds, Kristaps, Reinis, Toms, Ēriks, Aleksandrs,
Sergejs, Vladimirs
`),
    firstFemale: words(`
Anna, Līga, Ilze, Inese, Kristīne, Laura, Dace, Santa, Ieva, Agnese, Sandra, Iveta, Zane, Baiba,
Evija, Marta, Elīna, Gunta, Daiga, Vija, Anita, Inga, Linda, Ingrīda, Jeļena, Olga
`),
    lastMale: words(`
Bērziņš, Kalniņš, Ozoliņš, Jansons, Liepiņš, Krūmiņš, Balodis, Eglītis, Zariņš, Pētersons, Vītols,
Kļaviņš, Ozols, Lācis, Siliņš, Vilks, Šmits, Grīnbergs, Dzenis, Kārkliņš, Ābols, Āboliņš, Strazds,
Cīrulis, Bukovskis, Ivanovs, Kuzņecovs, Petrovs, Lapiņš, Puriņš
`),
    lastFemale: words(`
Bērziņa, Kalniņa, Ozoliņa, Jansone, Liepiņa, Krūmiņa, Balode, Eglīte, Zariņa, Pētersone, Vītola,
Kļaviņa, Ozola, Lāce, Siliņa, Vilka, Šmite, Grīnberga, Dzene, Kārkliņa, Ābola, Āboliņa, Strazda,
Cīrule, Bukovska, Ivanova, Kuzņecova, Petrova, Lapiņa, Puriņa
`),
    stemHeads: words(`
Baltijas, Dzintara, Saules, Daugavas, Ziemeļu, Rīgas, Kurzemes, Vidzemes, Latgales, Zemgales, Ozolu,
Liepu, Priežu, Jūras, Zvaigznes, Avota, Lauku, Meža, Upes, Akmens, Rasas, Vēja, Zaļā, Jaunā
`),
    stemTails: words(`
Koks, Nams, Dārzs, Krasts, Ceļš, Vārti, Sēta, Ozols, Gaisma, Zeme, Avots, Tilts, Līcis, Birze
`),
    stemJoiner: ' ',
    business: {
      A: words('Lauki, Agro, Zemnieki, Mežs'),
      B: words('Karjers, Smilts'),
      C: words('Ražotne, Mēbeles, Metāls, Kokapstrāde, Maiznīca'),
      D: words('Enerģija, Siltums'),
      E: words('Vide, Atkritumi'),
      F: words('Būve, Būvnieki, Remonts, Jumti, Celtnieks, Elektro'),
      G: words('Tirdzniecība, Trade, Veikals, Auto, Vairumtirdzniecība'),
      H: words('Transports, Loģistika, Pārvadājumi, Kravas'),
      I: words('Kafejnīca, Restorāns, Viesnīca, Hostelis'),
      J: words('IT, Digital, Sistēmas, Media, Solutions'),
      K: words('Finanses, Kapitāls, Invest'),
      L: words('Nekustamie īpašumi, Namu pārvalde, Invest'),
      M: words('Konsultācijas, Partneri, Dizains, Grāmatvedība, Juristi, Arhitekti'),
      N: words('Serviss, Uzkopšana, Noma, Apsardze'),
      O: words('Serviss'),
      P: words('Mācību centrs, Akadēmija, Valodu skola'),
      Q: words('Klīnika, Zobārstniecība, Veselība, Aptieka'),
      R: words('Studija, Sports, Māksla, Mūzika'),
      S: words('Salons, Frizētava, Serviss'),
      T: words('Mājas'),
      U: words('Pārstāvniecība'),
      _: words('Grupa, Holdings, Serviss'),
    },
    association: words(`
Biedrība, Sporta klubs, Kopiena, Fonds, Apvienība, Koris, Klubs, Mednieku klubs
`),
    streets: words(`
Brīvības iela, Lāčplēša iela, Dzirnavu iela, Elizabetes iela, Krasta iela, Skolas iela, Rīgas iela,
Dārza iela, Pils iela, Ezera iela, Tērbatas iela, Maskavas iela, Kr. Valdemāra iela, Meža iela,
Stacijas iela, Jelgavas iela, Brīvības gatve, Lielā iela, Parka iela, Liepu iela
`),
    templates: {
      org: templates({ '{stem}': 0.35, '{stem} {biz}': 0.35, '{last} {biz}': 0.15, '{town} {biz}': 0.15 }),
      person: templates({ '{stem}': 0.5, '{first} {last}': 0.5 }),
      assoc: templates({ '{town} {assoc}': 0.4, '{stem}': 0.4, '{stem} {assoc}': 0.2 }),
      housing: templates({ '{street} {nr}': 1 }),
    },
  },
  contacts: {
    published: { email: 0.3, www: 0.15, tel: 0.12, mob: 0.25 },
    mailboxes: ['info', 'birojs', 'pasts', 'rekini'],
    tlds: tlds({ lv: 0.8, com: 0.18, eu: 0.02 }),
    mobile: [digits('+371 2### ####')],
    landline: [digits('+371 67## ####')],
  },
  // Latvian postcodes are written with the country prefix: `LV-1019` (the register's `index` is `1019`).
  address: addressTexts('{town}, {street}', '{pc}', digits('LV-####')),
  clusters: [
    { names: ['Rīga'], share: 0.45 },
    { names: ['Mārupes novads', 'Ķekavas novads', 'Ropažu novads', 'Ādažu novads', 'Jūrmala'], share: 0.1 },
    { names: ['Daugavpils', 'Liepāja', 'Jelgava'], share: 0.08 },
  ],
  townLevel: -1,
  townStrip: [],
  countyLevel: 0,
};

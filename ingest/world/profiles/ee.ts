import { words } from './words.ts';
import { capital, digits, legalForms, roles, fourStates, templates, tlds } from './tables.ts';
import type { CountryProfile } from './types.ts';

/*
 * Estonia: RIK e-Business Register.
 * - Legal-form codes are the abbreviations RIK's yldandmed carries in `oiguslik_vorm` ("OÜ", with
 *   `oiguslik_vorm_tekstina` "Osaühing"); the set and the local names and abbreviations are the ISO 20275
 *   ELF list rows for EE (shared/reference/classifiers/iso20275_elf_code_list_2026-02-19.csv).
 * - Status codes R/L/N/K and their texts: registry-formats.md 1.1a (VAKU fetch_tenants.py STATUS_TEXT).
 * - Code ranges: python-stdnum stdnum/ee/registrikood.py ("commercial company numbers start with a 1 ...
 *   non-profit organisations with an 8 and foundations with a 9"); the check digit is the isikukood rule
 *   (src/contract/registration-codes.ts).
 * - Board roles JUHL / PROK: registry-formats.md 1.1c (VAKU BOARD_ROLES); the labels are RIK's Estonian.
 * - Sizes: ~360k companies, ~300k active (registry-formats.md 1.5).
 */

const statuses = fourStates({
  R: ['R', 'Registrisse kantud'],
  L: ['L', 'Likvideerimisel'],
  N: ['N', 'Pankrotis'],
  K: ['K', 'Kustutatud'],
});

// OÜ share capital: 2500 EUR was the minimum until 2023; 2556.46 is EEK 40,000 converted at the euro
// changeover; 0.01 EUR is possible since the 2023 amendment.
const ouCapital = capital(
  [
    [2500, 0.62],
    [2556.46, 0.08],
    [0.01, 0.06],
    [3000, 0.03],
    [5000, 0.04],
  ],
  { tailShare: 0.17, tailMedian: 10_000, decimals: 2 },
);
const asCapital = capital(
  [
    [25_000, 0.6],
    [25_564.59, 0.1],
  ],
  { tailShare: 0.3, tailMedian: 250_000, decimals: 2 },
);

const board = roles(['JUHL', 'Juhatuse liige', 0.96], ['PROK', 'Prokurist', 0.04]);

const form = legalForms({ affix: 'code', vatShare: 0.45, people: 'board', filesAccounts: true });

export const EE: CountryProfile = {
  total: 360_000,
  currency: 'EUR',
  eurRate: 1,
  operatingShare: 0.78,
  maxEmployees: 8_000,
  families: [
    {
      key: 'commercial',
      share: 0.86,
      codeLo: 1_000_000,
      codeSpan: 800_000,
      firstRegistration: '1995-09-01',
      meanAgeYears: 9,
      statuses: statuses(0.83, 0.05, 0.02),
      forms: [
        form({ code: 'OÜ', label: 'Osaühing', weight: 0.8, capital: ouCapital }),
        form({
          code: 'AS',
          label: 'Aktsiaselts',
          weight: 0.012,
          sizeShift: 1.6,
          vatShare: 0.85,
          capital: asCapital,
        }),
        form({
          code: 'FIE',
          label: 'Füüsilisest isikust ettevõtja',
          weight: 0.17,
          affix: null,
          affixPosition: 'none',
          nameStyle: 'person',
          soleTrader: true,
          sizeShift: -0.6,
          vatShare: 0.15,
          people: 'none',
        }),
        form({ code: 'TÜ', label: 'Täisühing', weight: 0.009, vatShare: 0.3 }),
        form({ code: 'UÜ', label: 'Usaldusühing', weight: 0.005, vatShare: 0.3 }),
        form({ code: 'TÜH', label: 'Tulundusühistu', weight: 0.004, vatShare: 0.4 }),
      ],
    },
    {
      key: 'nonprofit',
      share: 0.12,
      codeLo: 8_000_000,
      codeSpan: 999_999,
      firstRegistration: '1996-01-01',
      meanAgeYears: 12,
      statuses: statuses(0.9, 0.03, 0.002),
      forms: [
        form({
          code: 'MTÜ',
          label: 'Mittetulundusühing',
          weight: 0.74,
          affix: 'MTÜ',
          affixPosition: 'prefix',
          nameStyle: 'assoc',
          sizeShift: -1,
          vatShare: 0.05,
          filesAccounts: true,
        }),
        form({
          code: 'KÜ',
          label: 'Korteriühistu',
          weight: 0.26,
          affix: null,
          affixPosition: 'none',
          nameStyle: 'housing',
          sizeShift: -1.5,
          vatShare: 0.01,
        }),
      ],
    },
    {
      key: 'foundation',
      share: 0.02,
      codeLo: 9_000_000,
      codeSpan: 99_999,
      firstRegistration: '1996-01-01',
      meanAgeYears: 12,
      statuses: statuses(0.9, 0.03, 0.002),
      forms: [
        form({
          code: 'SA',
          label: 'Sihtasutus',
          weight: 1,
          affix: 'Sihtasutus',
          affixPosition: 'prefix',
          nameStyle: 'assoc',
          vatShare: 0.2,
        }),
      ],
    },
  ],
  defaultRoles: board,
  names: {
    firstMale: words(`
Andres, Jaan, Toomas, Rein, Mart, Peeter, Tõnu, Ülo, Märt, Priit, Margus, Urmas, Indrek, Tarmo,
Siim, Kristjan, Rasmus, Karl, Martin, Marko, Aivar, Raivo, Sander, Kaspar, Jüri, Tiit, Veiko,
Janek, Hendrik, Oliver, Aleksandr, Sergei
`),
    firstFemale: words(`
Mari, Kadri, Kersti, Tiina, Anu, Piret, Triin, Kristiina, Liis, Kaja, Helen, Ülle, Maarja, Katrin,
Eveli, Merle, Sirje, Tiiu, Marika, Laura, Grete, Karin, Külli, Aili, Reet, Jelena, Olga
`),
    lastMale: words(`
Tamm, Saar, Sepp, Mägi, Kask, Kukk, Rebane, Ilves, Pärn, Koppel, Lepik, Kuusk, Karu, Lill, Kallas,
Vaher, Raudsepp, Luik, Kaasik, Kivi, Oja, Teder, Põder, Sild, Jõgi, Mets, Laur, Unt, Kõiv, Õun,
Väli, Järv, Kuusik, Paju, Vares, Nõmm, Peterson, Ivanov, Tali, Aas, Kütt, Kruus, Rätsep, Sarapuu
`),
    lastFemale: [],
    stemHeads: words(`
Põhja, Lõuna, Ida, Lääne, Mere, Metsa, Kivi, Päikese, Tuule, Kalju, Hõbe, Kulla, Tähe, Järve, Vana,
Uue, Pärli, Sini, Rohe, Lume, Tamme, Kase, Männi, Kuuse, Lepa, Saare, Ranna, Oru, Mäe, Heina,
Vikerkaare, Koidu
`),
    stemTails: words(`
täht, mets, kivi, rand, koda, maja, tuul, vili, sild, org, kallas, laine, puu, aed, värav, tee,
allikas, kaar, saar, küla, linn, laev, õu, lill
`),
    stemJoiner: '',
    business: {
      A: words('Talu, Agro, Põllumajandus, Metsandus'),
      B: words('Kaevandus, Karjäär'),
      C: words('Tootmine, Puit, Metall, Mööbel, Tehas, Pagar'),
      D: words('Energia, Soojus'),
      E: words('Keskkond, Jäätmed'),
      F: words('Ehitus, Ehitusgrupp, Remont, Katused, Projekt, Elekter'),
      G: words('Kaubandus, Trade, Pood, Hulgi, Auto'),
      H: words('Transport, Logistika, Vedu, Takso'),
      I: words('Kohvik, Resto, Majutus, Hostel, Toit'),
      J: words('IT, Tarkvara, Digital, Solutions, Meedia'),
      K: words('Finants, Kapital, Invest'),
      L: words('Kinnisvara, Haldus, Invest, Kodu'),
      M: words('Konsult, Partnerid, Disain, Raamatupidamine, Advokaadibüroo, Arhitektid'),
      N: words('Teenused, Koristus, Rent, Turvas'),
      O: words('Teenused'),
      P: words('Koolitus, Akadeemia, Keelekool'),
      Q: words('Kliinik, Hambaravi, Tervis, Perearst'),
      R: words('Stuudio, Sport, Kunst, Muusika'),
      S: words('Ilusalong, Juuksur, Teenus'),
      T: words('Kodu'),
      U: words('Esindus'),
      _: words('Grupp, Holding, Teenused'),
    },
    association: words(`
Selts, Spordiklubi, Külaselts, Ühing, Liit, Fond, Koor, Klubi
`),
    streets: words(`
Pärnu mnt, Tartu mnt, Narva mnt, Peterburi tee, Kesk tn, Pikk tn, Lai tn, Mere pst, Tööstuse tn,
Jõe tn, Kooli tn, Aia tn, Pargi tn, Vabriku tn, Sadama tn, Posti tn, Rüütli tn, Riia tn,
Vabaduse pst, Ringtee, Männi tn, Kase tn, Tallinna mnt, Lossi tn
`),
    templates: {
      org: templates({ '{stem}': 0.45, '{stem} {biz}': 0.3, '{last} {biz}': 0.15, '{town} {biz}': 0.1 }),
      person: templates({ '{first} {last}': 0.75, '{first} {last} {biz}': 0.25 }),
      assoc: templates({ '{town} {assoc}': 0.45, '{stem} {assoc}': 0.35, '{stem}': 0.2 }),
      housing: templates({ 'Korteriühistu {street} {nr}': 1 }),
    },
  },
  contacts: {
    published: { email: 0.55, www: 0.22, tel: 0.15, mob: 0.42 },
    mailboxes: ['info', 'kontakt', 'arved', 'mail', 'myyk'],
    tlds: tlds({ ee: 0.82, com: 0.15, eu: 0.03 }),
    mobile: [digits('+372 5### ####')],
    landline: [digits('+372 6## ####')],
  },
  address: {
    // RIK's address texts carry no postcode; the ingest appends lihtandmed's (indeks_ettevotja_aadressis).
    full: '{path}, {street}, {pc}',
    short: '{street}',
    postcode: digits('#####'),
  },
  clusters: [
    { names: ['Tallinn'], share: 0.42 },
    { names: ['Tartu linn'], share: 0.08 },
    { names: ['Viimsi vald', 'Rae vald', 'Harku vald', 'Saue vald'], share: 0.08 },
    { names: ['Pärnu linn'], share: 0.035 },
    { names: ['Narva linn'], share: 0.015 },
  ],
  // EHAK settlement kinds by their name: city districts and towns hold far more companies than villages.
  placeFactor: (leaf) =>
    / linnaosa$| linn$/.test(leaf.name)
      ? 40
      : / alev$/.test(leaf.name)
        ? 6
        : / alevik$/.test(leaf.name)
          ? 3
          : 1,
  townLevel: 1,
  townStrip: [' linn', ' vald'],
  countyLevel: 0,
};

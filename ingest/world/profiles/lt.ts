import { words } from './words.ts';
import type { CapitalProfile, CountryProfile, LegalForm, StatusOption } from './types.ts';

/*
 * Lithuania: Registrų centras JAR_IREGISTRUOTI.csv.
 * - form_kodas: 310 Uždaroji akcinė bendrovė and 320 Akcinė bendrovė are confirmed by real rows
 *   (registry-formats.md 3.1). 960 Mažoji bendrija and 810 Individuali įmonė follow SHADOW
 *   (RokasGH/shadowleads src/shadowleads/sql/core_entity.sql: `legal_form_code IN (960, 810) -- MB, IĮ`);
 *   COLT says 110 = IĮ, which conflicts. The codes of the other JAR forms (viešoji įstaiga, asociacija,
 *   bendrija ...) were not found anywhere, so the world holds these four forms only (docs/world.md). The
 *   form labels are JAR's `form_pavadinimas` (tomasrasymas/Lithuania-legal-entities-dataset
 *   drivers/mappings.py).
 * - stat_kodas 0-10 and their texts: registry-formats.md 3.1 (official list) and the same mappings.py.
 *   0 "Teisinis statusas neįregistruotas" means operating normally.
 * - Codes: 9 digits, no check digit (src/contract/registration-codes.ts); entities registered before the
 *   2004 re-coding carry 1xxxxxxxx, newer ones 30xxxxxxx (real examples 110003978, 301011561, 307575857).
 * - People: LT publishes none (spec 2.3), so every form has people 'none'.
 * - Size: ~230k rows (registry-formats.md 3.5).
 */

const statuses: StatusOption[] = [
  { staatus: 'R', source: '0', text: 'Teisinis statusas neįregistruotas', weight: 0.86 },
  { staatus: 'T', source: '1', text: 'Reorganizuojamas', weight: 0.005 },
  { staatus: 'T', source: '2', text: 'Dalyvaujantis reorganizavime', weight: 0.002 },
  { staatus: 'T', source: '3', text: 'Pertvarkomas', weight: 0.003 },
  { staatus: 'T', source: '4', text: 'Restruktūrizuojamas', weight: 0.004 },
  { staatus: 'N', source: '5', text: 'Bankrutuojantis', weight: 0.02 },
  { staatus: 'N', source: '6', text: 'Bankrutavęs', weight: 0.02 },
  { staatus: 'L', source: '7', text: 'Likviduojamas', weight: 0.045 },
  { staatus: 'T', source: '8', text: 'Dalyvaujantis atskyrime', weight: 0.001 },
  { staatus: 'L', source: '9', text: 'Inicijuojamas likvidavimas', weight: 0.02 },
  { staatus: 'K', source: '10', text: 'Išregistruotas', weight: 0.02 },
];

// UAB minimum capital is 1000 EUR since 2020 (2500 EUR before, converted from 10,000 LTL).
const uabCapital: CapitalProfile = {
  common: [
    { amount: 2500, weight: 0.45 },
    { amount: 2896.2, weight: 0.15 },
    { amount: 1000, weight: 0.15 },
  ],
  tailShare: 0.25,
  tailMedian: 20_000,
  decimals: 2,
};

const form = (f: Partial<LegalForm> & Pick<LegalForm, 'code' | 'label' | 'weight' | 'affix'>): LegalForm => ({
  affixPosition: 'quoted',
  nameStyle: 'org',
  soleTrader: false,
  sizeShift: 0,
  vatShare: 0.45,
  capital: null,
  people: 'none',
  filesAccounts: true,
  ...f,
});

const forms: LegalForm[] = [
  form({ code: '310', label: 'Uždaroji akcinė bendrovė', affix: 'UAB', weight: 0.72, capital: uabCapital }),
  form({ code: '320', label: 'Akcinė bendrovė', affix: 'AB', weight: 0.01, sizeShift: 1.8, vatShare: 0.9 }),
  form({ code: '960', label: 'Mažoji bendrija', affix: 'MB', weight: 0.19, sizeShift: -0.5, vatShare: 0.25 }),
  form({
    code: '810',
    label: 'Individuali įmonė',
    affix: 'IĮ',
    weight: 0.08,
    sizeShift: -0.4,
    vatShare: 0.3,
  }),
];

export const LT: CountryProfile = {
  total: 230_000,
  currency: 'EUR',
  eurRate: 1,
  operatingShare: 0.7,
  maxEmployees: 6_000,
  families: [
    {
      key: 'pre2004',
      share: 0.28,
      codeLo: 110_000_000,
      codeSpan: 89_999_999,
      firstRegistration: '1990-03-11',
      lastRegistration: '2004-04-30',
      meanAgeYears: 25,
      statuses,
      forms: forms.filter((f) => f.code !== '960'),
    },
    {
      key: 'since2004',
      share: 0.72,
      codeLo: 300_000_000,
      codeSpan: 7_999_999,
      firstRegistration: '2004-05-01',
      meanAgeYears: 7,
      statuses,
      forms,
    },
  ],
  defaultRoles: [],
  names: {
    firstMale: words(`
Jonas, Tomas, Mantas, Lukas, Andrius, Darius, Mindaugas, Paulius, Vytautas, Giedrius, Marius,
Dainius, Rimantas, Aurimas, Justinas, Gediminas, Saulius, Arūnas, Kęstutis, Žydrūnas, Ričardas,
Algirdas, Egidijus, Deividas
`),
    firstFemale: words(`
Rūta, Asta, Jurgita, Laura, Ieva, Indrė, Kristina, Rasa, Eglė, Gintarė, Aušra, Jūratė, Vilma,
Greta, Lina, Inga, Simona, Agnė, Dalia, Neringa, Daiva, Vaida, Živilė, Monika
`),
    lastMale: words(`
Kazlauskas, Jankauskas, Petrauskas, Stankevičius, Vasiliauskas, Žukauskas, Butkus, Paulauskas,
Urbonas, Kavaliauskas, Baranauskas, Pocius, Sakalauskas, Navickas, Rimkus, Šimkus, Vaitkus,
Ramanauskas, Mikalauskas, Lukoševičius, Žilinskas, Gudaitis, Kairys, Adomaitis
`),
    lastFemale: words(`
Kazlauskienė, Jankauskienė, Petrauskienė, Stankevičienė, Vasiliauskienė, Žukauskienė, Butkienė,
Paulauskienė, Urbonienė, Kavaliauskienė, Baranauskienė, Pocienė, Sakalauskienė, Navickienė,
Rimkienė, Šimkienė, Vaitkienė, Kazlauskaitė, Jankauskaitė, Petrauskaitė, Urbonaitė, Butkutė,
Rimkutė, Adomaitienė
`),
    stemHeads: words(`
Medienos, Saulės, Vilties, Baltijos, Gintaro, Ąžuolo, Liepų, Nemuno, Neries, Žalgirio, Aušros,
Šiaurės, Pietų, Vakarų, Rytų, Miško, Jūros, Akmens, Dangaus, Žiburio, Rasos, Vėjo, Kalno, Upės
`),
    stemTails: words(`
centras, namai, vartai, kelias, sodas, tiltas, šaltinis, krantas, uostas, žiedas, slėnis, giria
`),
    stemJoiner: ' ',
    business: {
      A: words('ūkis, agro, miškai'),
      B: words('karjeras'),
      C: words('gamyba, baldai, metalas, kepykla'),
      D: words('energija'),
      E: words('aplinka, atliekos'),
      F: words('statyba, remontas, stogai, elektra, statybos darbai'),
      G: words('prekyba, parduotuvė, auto, didmena'),
      H: words('transportas, logistika, pervežimai, krovinys'),
      I: words('kavinė, restoranas, svečių namai'),
      J: words('technologijos, sprendimai, IT, sistemos'),
      K: words('finansai, investicijos'),
      L: words('nekilnojamasis turtas, valda, investicijos'),
      M: words('konsultacijos, projektai, dizainas, apskaita, advokatai'),
      N: words('paslaugos, valymas, nuoma, apsauga'),
      O: words('paslaugos'),
      P: words('mokymai, akademija, kalbų mokykla'),
      Q: words('klinika, odontologija, sveikata, vaistinė'),
      R: words('studija, sportas, menai'),
      S: words('salonas, grožio studija, paslaugos'),
      T: words('namai'),
      U: words('atstovybė'),
      _: words('grupė, centras, paslaugos'),
    },
    association: words('bendrija, klubas, draugija'),
    streets: words(`
Gedimino pr., Vilniaus g., Kauno g., Žalgirio g., Savanorių pr., Mokyklos g., Sodų g., Liepų g.,
Taikos pr., Pramonės g., Ukmergės g., Laisvės al., Basanavičiaus g., Respublikos g., Tilžės g.,
Dariaus ir Girėno g., Vytauto g., Maironio g., Kalvarijų g., Ozo g.
`),
    templates: {
      org: [
        { template: '{stem}', weight: 0.45 },
        { template: '{head} {biz}', weight: 0.35 },
        { template: '{town} {biz}', weight: 0.2 },
      ],
      person: [{ template: '{first} {last}', weight: 1 }],
      assoc: [{ template: '{stem}', weight: 1 }],
      housing: [{ template: '{street} {nr}', weight: 1 }],
    },
  },
  contacts: {
    email: 0.12,
    www: 0.08,
    tel: 0.06,
    mob: 0.06,
    mailboxes: ['info', 'kontaktai', 'pastas', 'saskaitos'],
    tlds: [
      { tld: 'lt', weight: 0.85 },
      { tld: 'com', weight: 0.15 },
    ],
    mobile: [{ format: '+370 6%s %s', groups: [2, 5], weight: 1 }],
    landline: [{ format: '+370 5 %s %s', groups: [3, 4], weight: 1 }],
  },
  address: {
    full: '{town}, {street}, LT-{pc}',
    short: '{town}, {street}',
    postcode: { format: '%s', groups: [5], weight: 1 },
  },
  clusters: [
    { names: ['Vilniaus m. sav.'], share: 0.38 },
    { names: ['Kauno m. sav.'], share: 0.13 },
    { names: ['Klaipėdos m. sav.'], share: 0.07 },
    { names: ['Vilniaus r. sav.', 'Kauno r. sav.'], share: 0.05 },
    { names: ['Šiaulių m. sav.', 'Panevėžio m. sav.'], share: 0.06 },
  ],
  townLevel: -1,
  townStrip: [' sav.'],
  townNames: {
    'Vilniaus m. sav.': 'Vilnius',
    'Kauno m. sav.': 'Kaunas',
    'Klaipėdos m. sav.': 'Klaipėda',
    'Šiaulių m. sav.': 'Šiauliai',
    'Panevėžio m. sav.': 'Panevėžys',
    'Alytaus m. sav.': 'Alytus',
    'Palangos m. sav.': 'Palanga',
  },
  countyLevel: 0,
};

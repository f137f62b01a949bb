import { words } from './words.ts';
import { addressTexts, capital, digits, legalForms, statusOptions, templates, tlds } from './tables.ts';
import type { CountryProfile, LegalForm } from './types.ts';

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

const statuses = statusOptions(
  ['R', '0', 'Teisinis statusas neįregistruotas', 0.86],
  ['T', '1', 'Reorganizuojamas', 0.005],
  ['T', '2', 'Dalyvaujantis reorganizavime', 0.002],
  ['T', '3', 'Pertvarkomas', 0.003],
  ['T', '4', 'Restruktūrizuojamas', 0.004],
  ['N', '5', 'Bankrutuojantis', 0.02],
  ['N', '6', 'Bankrutavęs', 0.02],
  ['L', '7', 'Likviduojamas', 0.045],
  ['T', '8', 'Dalyvaujantis atskyrime', 0.001],
  ['L', '9', 'Inicijuojamas likvidavimas', 0.02],
  ['K', '10', 'Išregistruotas', 0.02],
);

// UAB minimum capital is 1000 EUR since 2020 (2500 EUR before, converted from 10,000 LTL).
const uabCapital = capital(
  [
    [2500, 0.45],
    [2896.2, 0.15],
    [1000, 0.15],
  ],
  { tailShare: 0.25, tailMedian: 20_000, decimals: 2 },
);

const form = legalForms<'affix'>({
  affix: null,
  affixPosition: 'quoted',
  vatShare: 0.45,
  people: 'none',
  filesAccounts: true,
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
      org: templates({ '{stem}': 0.45, '{head} {biz}': 0.35, '{town} {biz}': 0.2 }),
      person: templates({ '{first} {last}': 1 }),
      assoc: templates({ '{stem}': 1 }),
      housing: templates({ '{street} {nr}': 1 }),
    },
  },
  contacts: {
    published: { email: 0.12, www: 0.08, tel: 0.06, mob: 0.06 },
    mailboxes: ['info', 'kontaktai', 'pastas', 'saskaitos'],
    tlds: tlds({ lt: 0.85, com: 0.15 }),
    mobile: [digits('+370 6## #####')],
    landline: [digits('+370 5 ### ####')],
  },
  address: addressTexts('{town}, {street}', 'LT-{pc}', digits('#####')),
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
